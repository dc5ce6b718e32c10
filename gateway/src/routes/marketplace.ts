import type { Static } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { OperatorAccess } from '../auth/operator-access';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, MerchantIdParams, successOf } from '../schemas/common';
import {
  CommissionBody,
  DeletedMerchant,
  Invitation,
  InvitationList,
  InvitationListQuery,
  InvitationTokenBody,
  LinkBody,
  ListQuery,
  Marketplace,
  Relationship,
  RelationshipList,
  Removed,
  SetupBody,
} from '../schemas/marketplace';
import { InitiatePayoutBody, MerchantBalance, PayoutRequest } from '../schemas/payouts';

type MerchantRequest = FastifyRequest<{ Params: Static<typeof MerchantIdParams> }>;

const tags = ['Marketplace'];
const schema = (summary: string, data: Parameters<typeof successOf>[0], extra: Record<string, unknown> = {}) => ({
  schema: { tags, security, summary, response: { 200: successOf(data), ...COMMON_ERRORS }, ...extra },
});

/** Operator routes (spec 4.9): their 403 and 404 come before any 400 about the request (operator-access.ts). */
const operatorOnly = { operatorAccess: {} } satisfies FastifyContextConfig;
const onSubMerchant = (access: OperatorAccess = {}) =>
  ({ operatorAccess: { subMerchantParam: 'merchantId', ...access } }) satisfies FastifyContextConfig;

/** Spec 4.9 (marketplace operators) and the operations it names without shapes; KYC and payouts: routes/kyc.ts. */
export async function registerMarketplaceRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { marketplace } = deps.clients;

  app.post<{ Body: Static<typeof SetupBody> }>(
    '/marketplace/setup',
    {
      config: operatorOnly,
      ...schema('Enable marketplace mode (repeatable: updates the name and default commission)', Marketplace, {
        body: SetupBody,
      }),
    },
    async (req) =>
      ok(await marketplace.call('SetupMarketplace', req.body, callerMetadata(req)), 'Marketplace mode enabled'),
  );

  app.post<{ Body: Static<typeof LinkBody> }>(
    '/marketplace/merchants',
    {
      config: operatorOnly,
      schema: {
        tags,
        security,
        summary:
          'Create or link merchant: new business fields create an active sub-merchant; merchant_id invites an existing business',
        description:
          'With merchant_id the answer is 202 with an invitation, the same whatever the id (unknown, an operator, or ' +
          "already someone's sub-merchant): the business's e-mail is shown only once it accepts with its own key. " +
          'With new business fields whose e-mail is already registered to a business, that business is invited ' +
          'instead (202, merchant_id null until it accepts): no answer says which e-mails have accounts.',
        body: LinkBody,
        response: {
          201: successOf(Relationship, 'Created: the new business is an active sub-merchant'),
          202: successOf(Invitation, 'Invitation sent: the business joins when it accepts'),
          ...COMMON_ERRORS,
        },
      },
    },
    async (req, reply) => {
      if (req.body.merchant_id !== undefined) {
        const invitation = await marketplace.call('InviteMerchant', req.body, callerMetadata(req));
        return reply.status(202).send(ok(invitation, 'Invitation sent'));
      }
      const created = await marketplace.call('CreateSubMerchant', req.body, callerMetadata(req));
      if (created.invitation) return reply.status(202).send(ok(created.invitation, 'Invitation sent'));
      return reply.status(201).send(ok(created.relationship, 'Merchant created'));
    },
  );

  app.get<{ Querystring: Static<typeof InvitationListQuery> }>(
    '/marketplace/invitations',
    schema(
      'Invitations received by the caller (default) or sent by the caller (operators), in its key mode',
      InvitationList,
      {
        querystring: InvitationListQuery,
      },
    ),
    async (req) => {
      const { direction, status, page, limit } = req.query;
      return ok(
        await marketplace.call('ListInvitations', { direction, status, page: { page, limit } }, callerMetadata(req)),
      );
    },
  );

  app.post<{ Body: Static<typeof InvitationTokenBody> }>(
    '/marketplace/invitations/accept',
    schema(
      "Invited business: accept an operator's invitation (with the invited business's own API key of the invitation's mode)",
      Relationship,
      { body: InvitationTokenBody },
    ),
    async (req) => ok(await marketplace.call('AcceptInvitation', req.body, callerMetadata(req)), 'Invitation accepted'),
  );

  app.post<{ Body: Static<typeof InvitationTokenBody> }>(
    '/marketplace/invitations/decline',
    schema("Invited business: decline an operator's pending invitation", Invitation, { body: InvitationTokenBody }),
    async (req) =>
      ok(await marketplace.call('DeclineInvitation', req.body, callerMetadata(req)), 'Invitation declined'),
  );

  app.post<{ Body: Static<typeof InvitationTokenBody> }>(
    '/marketplace/invitations/cancel',
    {
      config: operatorOnly,
      ...schema('Operator: cancel a pending invitation it sent', Invitation, { body: InvitationTokenBody }),
    },
    async (req) =>
      ok(await marketplace.call('CancelInvitation', req.body, callerMetadata(req)), 'Invitation cancelled'),
  );

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/marketplace/merchants',
    { config: operatorOnly, ...schema('List sub-merchants', RelationshipList, { querystring: ListQuery }) },
    async (req) => {
      const { status, page, limit } = req.query;
      return ok(await marketplace.call('ListMerchants', { status, page: { page, limit } }, callerMetadata(req)));
    },
  );

  app.delete(
    '/marketplace/merchants/:merchantId',
    {
      config: onSubMerchant(),
      schema: {
        tags,
        security,
        summary: 'Remove merchant: suspends an active sub-merchant (account, products and history untouched)',
        params: MerchantIdParams,
        response: { 200: Removed, ...COMMON_ERRORS },
      },
    },
    async (req: MerchantRequest) => {
      const res = await marketplace.call('RemoveMerchant', { merchant_id: req.params.merchantId }, callerMetadata(req));
      return { success: true as const, message: res.message };
    },
  );

  app.post(
    '/marketplace/merchants/:merchantId/reactivate',
    {
      config: onSubMerchant(),
      ...schema('Reactivate merchant: restores a suspended sub-merchant', Relationship, { params: MerchantIdParams }),
    },
    async (req: MerchantRequest) =>
      ok(await marketplace.call('ReactivateMerchant', { merchant_id: req.params.merchantId }, callerMetadata(req))),
  );

  app.delete(
    '/marketplace/merchants/:merchantId/delete',
    {
      // Spec 7.6 words a missing or invalid key "Unauthorized".
      config: { authFailureMessage: 'Unauthorized', ...onSubMerchant({ notFound: 'MERCHANT_RELATIONSHIP_NOT_FOUND' }) },
      schema: {
        tags,
        security,
        summary: 'Delete merchant: permanently deletes a sub-merchant and all its business data in every service',
        description:
          'Waits until every service has deleted its part. 400 "Failed to delete merchant business data" means some ' +
          'have not yet (error.detail names them); the deletion goes on, and repeating this request finishes it.',
        params: MerchantIdParams,
        response: { 200: successOf(DeletedMerchant, 'Deleted'), ...COMMON_ERRORS },
      },
    },
    async (req: MerchantRequest) => {
      // Waits for every service's acknowledgement: the longer deadline, which marketplace stays inside.
      const { message, ...data } = await marketplace.call(
        'DeleteMerchant',
        { merchant_id: req.params.merchantId },
        callerMetadata(req),
        { deadlineMs: deps.config.GRPC_PAYMENT_DEADLINE_MS },
      );
      return ok(data, message);
    },
  );

  app.patch<{ Params: Static<typeof MerchantIdParams>; Body: Static<typeof CommissionBody> }>(
    '/marketplace/merchants/:merchantId/commission',
    {
      config: onSubMerchant(),
      ...schema("Update commission: set a sub-merchant's own rate, or null for the marketplace default", Relationship, {
        params: MerchantIdParams,
        body: CommissionBody,
      }),
    },
    async (req) => {
      // null (fall back to the default) travels as an absent proto3 optional.
      const rate = req.body.commission_rate ?? undefined;
      return ok(
        await marketplace.call(
          'UpdateCommission',
          { merchant_id: req.params.merchantId, commission_rate: rate },
          callerMetadata(req),
        ),
      );
    },
  );

  app.get(
    '/marketplace/merchants/:merchantId/balance',
    {
      config: onSubMerchant({ activeOnly: true }),
      ...schema(
        "A sub-merchant's wallet balances, one per currency (constant time: one wallet document each)",
        MerchantBalance,
        { params: MerchantIdParams },
      ),
    },
    async (req: MerchantRequest) =>
      ok(await marketplace.call('GetMerchantBalance', { merchant_id: req.params.merchantId }, callerMetadata(req))),
  );

  app.post<{ Body: Static<typeof InitiatePayoutBody> }>(
    '/marketplace/payouts',
    schema(
      'Sub-merchant: request a payout, staged for operator approval (reserves the amount; 400 without the available balance; a repeated reference answers the same request)',
      PayoutRequest,
      { body: InitiatePayoutBody },
    ),
    async (req) => {
      const { amount, currency, ...rest } = req.body;
      return ok(
        await marketplace.call('InitiatePayout', { ...rest, amount: { amount, currency } }, callerMetadata(req)),
      );
    },
  );
}
