import type { Static } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyReply } from 'fastify';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { fillNulls } from '../http/nulls';
import { apiKeySecurity as security, COMMON_ERRORS, MerchantIdParams, successOf } from '../schemas/common';
import {
  BanksQuery,
  DecisionBody,
  InHouseKyc,
  KycBody,
  KycParams,
  KycStatusData,
  KycSubmitData,
  PayoutBank,
  PayoutBody,
  PayoutData,
} from '../schemas/kyc';
import { Type } from '@sinclair/typebox';
import { onboardingUrl } from '../onboarding/onboarding-url';

const tags = ['Marketplace KYC and payouts'];
const response = (data: Parameters<typeof successOf>[0]) => ({ 200: successOf(data), ...COMMON_ERRORS });

/** Spec 7.2 and 7.3 word a missing or invalid key "Unauthorized". */
const config = { authFailureMessage: 'Unauthorized' };
/** Operator routes: their 403 and 404 come before any 400 about the request (operator-access.ts). */
const operatorOnly = { ...config, operatorAccess: {} } satisfies FastifyContextConfig;
const onActiveSubMerchant = (portfolio = false) =>
  ({
    ...config,
    operatorAccess: { subMerchantParam: 'merchantId', activeOnly: true, portfolio },
  }) satisfies FastifyContextConfig;

/** Responses carrying a client_secret are shown once: never cached, never kept as an idempotent answer. */
const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

/**
 * Spec 4.9 KYC (submit, status), the payout banks directory and payout setup/update for marketplace
 * operators, and the sandbox KYC decision helper. The kyc service checks the operator and its active
 * relationship with the merchant on every call.
 */
export async function registerKycRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { kyc } = deps.clients;

  app.post<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof KycBody> }>(
    '/marketplace/merchants/:merchantId/kyc',
    {
      config: onActiveSubMerchant(),
      schema: {
        tags,
        security,
        summary: 'Submit sub-merchant identity verification (KYC)',
        description:
          'In-house review for NG, GH, ZA and KE (structured or flat body; valid Nigerian bank details without a ' +
          'country mismatch may be approved at once); connected-account onboarding for every other country ' +
          '(redirect the merchant to onboarding_url). Resubmit after rejected or additional_info_requested.',
        params: MerchantIdParams,
        body: KycBody,
        response: response(KycSubmitData),
      },
    },
    async (req, reply) => {
      const res = await kyc.call(
        'SubmitKyc',
        { ...(req.body as types.kyc.SubmitKycRequest), merchant_id: req.params.merchantId },
        callerMetadata(req),
      );
      if (res.onboarding) {
        const o = res.onboarding;
        noStore(reply);
        return ok(
          {
            provider: o.provider,
            submission_id: o.submission_id,
            gateway_account_id: o.gateway_account_id,
            onboarding_url: onboardingUrl(deps, o.onboarding_token),
            client_secret: o.client_secret,
            publishable_key: o.publishable_key,
            settlement_currency: o.settlement_currency,
            gateway_region: o.gateway_region,
          },
          res.message,
        );
      }
      return ok(fillNulls(InHouseKyc, res.submission!), res.message);
    },
  );

  app.get<{ Params: Static<typeof MerchantIdParams> }>(
    '/marketplace/merchants/:merchantId/kyc',
    {
      config: onActiveSubMerchant(),
      schema: {
        tags,
        security,
        summary: "A sub-merchant's KYC status (not_started until the first submission)",
        params: MerchantIdParams,
        response: response(KycStatusData),
      },
    },
    async (req) => ok(await kyc.call('GetKycStatus', { merchant_id: req.params.merchantId }, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof KycParams>; Body: Static<typeof DecisionBody> }>(
    '/sandbox/kyc/:submission_id/:action',
    {
      config: operatorOnly,
      schema: {
        tags: ['Sandbox'],
        security,
        summary:
          'Sandbox keys only: decide a sandbox KYC submission as a reviewer would (approve, reject with reason, ' +
          'request_info with message, revoke with reason)',
        params: KycParams,
        body: DecisionBody,
        response: response(KycStatusData),
      },
    },
    async (req) =>
      ok(
        await kyc.call(
          'DecideSandboxKyc',
          { ...req.params, reason: req.body?.reason, message: req.body?.message },
          callerMetadata(req),
        ),
      ),
  );

  app.get<{ Querystring: Static<typeof BanksQuery> }>(
    '/marketplace/payout/banks',
    {
      config: operatorOnly,
      schema: {
        tags,
        security,
        summary: 'Supported payout banks and mobile-money providers (NG, GH, KE, ZA)',
        querystring: BanksQuery,
        response: response(Type.Array(PayoutBank)),
      },
    },
    async (req) => ok((await kyc.call('ListPayoutBanks', req.query, callerMetadata(req))).banks),
  );

  for (const [method, rpc, summary, done] of [
    [
      'POST',
      'SetupPayout',
      'First-time payout setup (NG, GH, ZA, KE: an empty body pays out to the KYC bank account)',
      'Payout account set up',
    ],
    ['PATCH', 'UpdatePayout', "Update a sub-merchant's payout settings", 'Payout account updated'],
  ] as const) {
    app.route<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof PayoutBody> }>({
      method,
      url: '/marketplace/merchants/:merchantId/payout',
      config: onActiveSubMerchant(true),
      schema: { tags, security, summary, params: MerchantIdParams, body: PayoutBody, response: response(PayoutData) },
      handler: async (req, reply) => {
        const res = await kyc.call(rpc, { ...req.body, merchant_id: req.params.merchantId }, callerMetadata(req));
        const base = { merchant_id: res.merchant_id, baseline_currency: res.baseline_currency, country: res.country };
        if (res.kind === 'connected_account') {
          noStore(reply);
          return ok(
            {
              ...base,
              settlement_currency: res.settlement_currency,
              client_secret: res.client_secret,
              publishable_key: res.publishable_key,
              onboarding_url: onboardingUrl(deps, res.onboarding_token),
            },
            'Redirect the merchant to onboarding_url to change its payout details',
          );
        }
        return ok(
          {
            ...base,
            bank_name: res.bank_name,
            bank_account_number: res.bank_account_number,
            bank_account_name: res.bank_account_name,
            settlement_currency: res.settlement_currency,
            institution_id: res.institution_id,
            account_number_type: res.account_number_type,
            change_status: res.change_status,
          },
          res.change_status === 'pending_review'
            ? 'Payout account change submitted for review: the account name does not match the KYC legal name'
            : done,
        );
      },
    });
  }
}
