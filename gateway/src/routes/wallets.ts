import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import { OwnBalance, PayoutRequest, SettleParams } from '../schemas/payouts';

/** The calling merchant's own wallets (beyond the spec) and the sandbox settlement helper. */
export async function registerWalletRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;

  app.get(
    '/balance',
    {
      schema: {
        tags: ['Wallets'],
        summary: "The calling merchant's wallet balances in the key's mode, one per currency (spec 2.9 entries)",
        security,
        response: { 200: successOf(OwnBalance), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('GetWalletBalances', {}, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof SettleParams> }>(
    '/sandbox/payouts/:reference/:outcome',
    {
      schema: {
        tags: ['Sandbox'],
        summary:
          'Sandbox keys only: settle your approved payout (payout_pending) as paid (final wallet debit, wallet.debited) or failed (reservation released)',
        security,
        params: SettleParams,
        response: { 200: successOf(PayoutRequest), ...COMMON_ERRORS },
      },
    },
    async (req) =>
      ok(
        await payments.call(
          'SettlePayout',
          {
            reference: req.params.reference,
            outcome: req.params.outcome,
            failure_reason: 'sandbox: failed on request',
          },
          callerMetadata(req),
        ),
      ),
  );
}
