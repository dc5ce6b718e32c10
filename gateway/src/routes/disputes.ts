import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DISPUTE_EVIDENCE_FIELDS } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { GatewayDeps } from '../deps';
import { callerMetadata } from '../http/caller';
import { ok } from '../http/envelope';
import { apiKeySecurity as security, COMMON_ERRORS, successOf } from '../schemas/common';
import {
  DisputeData,
  DisputeList,
  DisputeListQuery,
  DisputeOutcomeParams,
  DisputeParams,
  EvidenceBody,
  SandboxDisputeBody,
} from '../schemas/disputes';
import { ChargeParams } from '../schemas/payments';

const tags = ['Disputes'];

/** The evidence a body sets (strings) and clears (nulls); fields it leaves out stay as they are. */
function evidenceRequest(
  body: Static<typeof EvidenceBody>,
): Pick<types.payments.SubmitDisputeEvidenceRequest, 'evidence' | 'cleared'> {
  const evidence: Record<string, string> = {};
  const cleared: string[] = [];
  const fields = body as Record<string, unknown>;
  for (const field of DISPUTE_EVIDENCE_FIELDS) {
    if (typeof fields[field] === 'string') evidence[field] = fields[field];
    else if (fields[field] === null) cleared.push(field);
  }
  return { evidence, cleared };
}

/** Disputes (chargebacks) of the calling merchant's charges, and their sandbox helpers. */
export async function registerDisputeRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { payments } = deps.clients;
  const one = { 200: successOf(DisputeData), ...COMMON_ERRORS };

  app.get<{ Querystring: Static<typeof DisputeListQuery> }>(
    '/disputes',
    {
      schema: {
        tags,
        security,
        summary: 'List disputes (newest first; filter by status, charge and time; cursor paging)',
        querystring: DisputeListQuery,
        response: { 200: successOf(DisputeList), ...COMMON_ERRORS },
      },
    },
    async (req) => ok(await payments.call('ListDisputes', req.query, callerMetadata(req))),
  );

  app.get<{ Params: Static<typeof DisputeParams> }>(
    '/disputes/:dispute_id',
    {
      schema: {
        tags,
        security,
        summary: 'A dispute, its evidence and the funds it moved',
        params: DisputeParams,
        response: one,
      },
    },
    async (req) => ok(await payments.call('GetDispute', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof DisputeParams>; Body: Static<typeof EvidenceBody> }>(
    '/disputes/:dispute_id/evidence',
    {
      schema: {
        tags,
        security,
        summary: 'Save evidence as a draft, or submit it (submit: true) to move the dispute to under_review',
        description:
          'Fields you send replace the saved ones, null clears one, fields you leave out stay. Submitting is once: ' +
          'a second submit, or any evidence after evidence_due_by, is a 409. A draft still saved at evidence_due_by ' +
          'is submitted then.',
        params: DisputeParams,
        body: EvidenceBody,
        response: one,
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const dispute = await payments.call(
        'SubmitDisputeEvidence',
        { dispute_id: req.params.dispute_id, ...evidenceRequest(body), submit: body.submit ?? false },
        callerMetadata(req),
      );
      return ok(dispute, body.submit ? 'Evidence submitted' : 'Evidence saved');
    },
  );

  app.post<{ Params: Static<typeof DisputeParams> }>(
    '/disputes/:dispute_id/accept',
    {
      schema: {
        tags,
        security,
        summary: 'Accept (concede) a dispute that needs a response: it is lost and closed; nothing more moves',
        params: DisputeParams,
        response: one,
      },
    },
    async (req) => ok(await payments.call('AcceptDispute', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof ChargeParams>; Body: Static<typeof SandboxDisputeBody> }>(
    '/sandbox/charges/:charge_id/dispute',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary: 'Sandbox keys only: open a dispute on a succeeded charge now (default: the whole amount, general)',
        params: ChargeParams,
        body: SandboxDisputeBody,
        response: one,
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const dispute = await payments.call(
        'OpenSandboxDispute',
        { charge_id: req.params.charge_id, reason: body.reason, amount: body.amount },
        callerMetadata(req),
      );
      return ok(dispute, 'Dispute opened');
    },
  );

  app.post<{ Params: Static<typeof DisputeParams> }>(
    '/sandbox/disputes/:dispute_id/expire',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary:
          'Sandbox keys only: move evidence_due_by to now: a saved draft is submitted, a dispute without evidence is lost',
        params: DisputeParams,
        response: one,
      },
    },
    async (req) => ok(await payments.call('ExpireSandboxDispute', req.params, callerMetadata(req))),
  );

  app.post<{ Params: Static<typeof DisputeOutcomeParams> }>(
    '/sandbox/disputes/:dispute_id/:outcome',
    {
      schema: {
        tags: ['Sandbox'],
        security,
        summary: 'Sandbox keys only: decide a dispute under review (won gives the funds back)',
        params: DisputeOutcomeParams,
        response: one,
      },
    },
    async (req) => ok(await payments.call('DecideSandboxDispute', req.params, callerMetadata(req))),
  );
}
