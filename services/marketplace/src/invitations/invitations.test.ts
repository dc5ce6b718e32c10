import { business, inMemoryMarketplace, L, S, type InMemoryMarketplace } from '../in-memory-marketplace.test-util';
import type { MerchantRecord } from '../merchants/merchant';
import { INVITATION_TTL_MS, invitationResource, type InvitationRecord } from './invitation';
import { ACCEPTANCE_REPAIR_AFTER_MS } from './invitations';

describe('InvitationService', () => {
  let w: InMemoryMarketplace;

  beforeEach(async () => {
    w = await inMemoryMarketplace();
  });

  describe('modes: sandbox and live are separate marketplaces', () => {
    beforeEach(async () => {
      await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
      await w.relationships.setup(w.operator.id, L, { marketplace_name: 'Shop', default_commission_rate: 2 });
      await w.relationships.link(w.operator.id, L, business('both@x.co'));
    });

    it('an invitation belongs to one mode: accepting it with a key of the other mode finds nothing', async () => {
      const existing = await w.merchants.create(business('e@x.co'));
      const inv = await w.invitations.invite(w.operator.id, L, { merchant_id: existing.id });
      await expect(w.invitations.accept(existing.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      await expect(w.invitations.cancel(w.operator.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      expect((await w.invitations.list(existing.id, S, 'received', undefined, 1, 20)).total).toBe(0);
      await w.invitations.accept(existing.id, L, inv.id);
      expect((await w.lookups.resolveSplit(w.operator.id, existing.id, L)).active).toBe(true);
      await expect(w.lookups.resolveSplit(w.operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
    });
  });

  describe('invitations', () => {
    let existing: MerchantRecord;
    beforeEach(async () => {
      await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
      existing = await w.merchants.create(business('e@x.co'));
    });

    it('invites without a relationship and without the e-mail; joins only on acceptance', async () => {
      const inv = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id, commission_rate: 4 });
      expect(inv).toMatchObject({ status: 'pending', mode: S, commission_rate: '0.0400', marketplace_name: 'Shop' });
      expect(JSON.stringify(inv)).not.toContain('e@x.co');
      expect(inv.expires_at.getTime() - inv.invited_at.getTime()).toBe(INVITATION_TTL_MS);
      expect(w.relRepo.docs.size).toBe(0);
      await expect(w.lookups.resolveSplit(w.operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
      // A repeated invitation while pending is the same invitation.
      expect((await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id })).id).toBe(inv.id);

      const other = await w.merchants.create(business('other@x.co'));
      await expect(w.invitations.accept(other.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
      await expect(w.invitations.accept(w.operator.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      const accepted = await w.invitations.accept(existing.id, S, inv.id);
      expect(accepted).toMatchObject({
        merchant_email: 'e@x.co',
        commission_rate: '0.0400',
        relationship: { status: 'active', mode: S, invite_token: null, invitation_id: inv.id, version: 1 },
      });
      expect(accepted.relationship.invited_at).toEqual(inv.invited_at);
      expect(await w.lookups.resolveSplit(w.operator.id, existing.id, S)).toMatchObject({ active: true });
      expect(await w.membershipOf(existing.id)).toMatchObject({ marketplace_id: w.operator.id });
      expect(w.relRepo.events.at(-1)).toMatchObject({ data: { change: 'accepted', mode: S } });
      expect((await w.invRepo.findById(inv.id))!).toMatchObject({ status: 'accepted', relationship_written: true });
      // Accepting again answers the same relationship; declining or cancelling it now is refused.
      expect((await w.invitations.accept(existing.id, S, inv.id)).relationship.id).toBe(accepted.relationship.id);
      await expect(w.invitations.decline(existing.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_CLOSED' });
      await expect(w.invitations.cancel(w.operator.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_CLOSED' });
    });

    it('answers the same for unknown ids, operators and someone else’s sub-merchants (no enumeration)', async () => {
      const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await w.relationships.setup(op2.id, S, { marketplace_name: 'Other' });
      const taken = (await w.relationships.link(op2.id, S, business('taken@x.co'))).relationship.merchant_id;
      const shape = (inv: InvitationRecord) => Object.keys(inv).sort();
      const answers = [];
      for (const merchant_id of [existing.id, 999_999, op2.id, taken]) {
        answers.push(await w.invitations.invite(w.operator.id, S, { merchant_id }));
      }
      expect(new Set(answers.map((a) => JSON.stringify([shape(a), a.status, a.marketplace_name]))).size).toBe(1);
      // None of those can be accepted; the taken one is refused to the business itself, which knows.
      await expect(w.invitations.accept(op2.id, S, answers[2]!.id)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(w.invitations.accept(taken, S, answers[3]!.id)).rejects.toMatchObject({
        code: 'MERCHANT_ALREADY_LINKED',
      });
      expect((await w.invRepo.findById(answers[3]!.id))!.status).toBe('pending');
      // Its own id, or both ways of adding at once, are the caller's own mistakes.
      await expect(w.invitations.invite(w.operator.id, S, { merchant_id: w.operator.id })).rejects.toMatchObject({
        param: 'merchant_id',
      });
      await expect(
        w.invitations.invite(w.operator.id, S, { merchant_id: existing.id, email: 'a@b.co' }),
      ).rejects.toMatchObject({
        param: 'email',
      });
      // …but only once the caller is an operator (Hardening 2 item 12).
      await expect(
        w.invitations.invite(existing.id, S, { merchant_id: op2.id, email: 'a@b.co' }),
      ).rejects.toMatchObject({ code: 'MARKETPLACE_OPERATOR_REQUIRED' });
    });

    it('a registered e-mail in create-or-link invites that business, showing the operator neither its id nor an error (Hardening 2 item 11)', async () => {
      const now = () => new Date(w.clock.now);
      const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await w.relationships.setup(op2.id, S, { marketplace_name: 'Other' });
      const taken = (await w.relationships.link(op2.id, S, business('taken@x.co'))).relationship.merchant_id;
      const answers = [];
      // A free business, an operator, someone else's sub-merchant: one answer shape, no id.
      for (const email of ['e@x.co', 'op2@x.co', 'taken@x.co']) {
        const res = await w.createOrLink.create(w.operator.id, S, { ...business(email), commission_rate: 3 });
        expect(res).toEqual({ invitation: expect.objectContaining({ addressed_by: 'email', status: 'pending' }) });
        answers.push(invitationResource((res as { invitation: InvitationRecord }).invitation, now(), 'operator'));
      }
      expect(answers.map((a) => [a.merchant_id, a.commission_rate, a.status])).toEqual([
        [null, '0.0300', 'pending'],
        [null, '0.0300', 'pending'],
        [null, '0.0300', 'pending'],
      ]);
      // The operator's list hides the id too; the invited business sees itself, accepts, and joins.
      const sent = await w.invitations.list(w.operator.id, S, 'sent', 'pending', 1, 20);
      expect(sent.items.map((i) => invitationResource(i, now(), 'operator').merchant_id)).toEqual([null, null, null]);
      const mine = await w.invitations.list(existing.id, S, 'received', 'pending', 1, 20);
      expect(mine.items.map((i) => invitationResource(i, now(), 'business').merchant_id)).toEqual([existing.id]);
      const joined = await w.invitations.accept(existing.id, S, mine.items[0]!.id);
      expect(joined.relationship).toMatchObject({ merchant_id: existing.id, commission_rate: '0.0300' });
      await expect(w.invitations.accept(taken, S, sent.items[2]!.id)).rejects.toMatchObject({
        code: 'MERCHANT_ALREADY_LINKED',
      });
      // An invitation by e-mail never meets one by id: the id answer cannot reveal the e-mail's business.
      const other = await w.merchants.create(business('other@x.co'));
      const byEmail = await w.createOrLink.create(w.operator.id, S, business('other@x.co'));
      const byId = await w.invitations.invite(w.operator.id, S, { merchant_id: other.id });
      expect((byEmail as { invitation: InvitationRecord }).invitation.id).not.toBe(byId.id);
      // A repeat by e-mail answers the pending one.
      const repeat = await w.createOrLink.create(w.operator.id, S, business('other@x.co'));
      expect((repeat as { invitation: InvitationRecord }).invitation.id).toBe(
        (byEmail as { invitation: InvitationRecord }).invitation.id,
      );
    });

    it('a pending invitation blocks nothing: another marketplace can invite and win the slot', async () => {
      const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await w.relationships.setup(op2.id, S, { marketplace_name: 'Other' });
      const first = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id });
      const second = await w.invitations.invite(op2.id, S, { merchant_id: existing.id });
      expect((await w.invitations.list(existing.id, S, 'received', 'pending', 1, 20)).total).toBe(2);
      await w.invitations.accept(existing.id, S, second.id);
      await expect(w.invitations.accept(existing.id, S, first.id)).rejects.toMatchObject({
        code: 'MERCHANT_ALREADY_LINKED',
      });
      expect((await w.lookups.resolveSplit(op2.id, existing.id, S)).active).toBe(true);
    });

    it('expires after 7 days (at read, then stored by the sweep); decline and cancel close it', async () => {
      const inv = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id });
      w.clock.now += INVITATION_TTL_MS;
      await expect(w.invitations.accept(existing.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_CLOSED',
        detail: 'The invitation is expired',
      });
      expect((await w.invitations.list(w.operator.id, S, 'sent', 'expired', 1, 20)).total).toBe(1);
      expect(await w.invitations.expireDue()).toBe(1);
      expect((await w.invRepo.findById(inv.id))!.status).toBe('expired');
      // The expired one no longer holds the open slot: a new invitation can be sent.
      const renewed = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id });
      expect(renewed.id).not.toBe(inv.id);
      const declined = await w.invitations.decline(existing.id, S, renewed.id);
      expect(declined).toMatchObject({ status: 'declined', responded_at: new Date(w.clock.now) });
      await expect(w.invitations.accept(existing.id, S, renewed.id)).rejects.toMatchObject({
        code: 'INVITATION_CLOSED',
      });
      const third = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id });
      await expect(w.invitations.decline(existing.id, S, 'inv_nope')).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await expect(w.invitations.cancel(op2.id, S, third.id)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
      expect((await w.invitations.cancel(w.operator.id, S, third.id)).status).toBe('cancelled');
      expect((await w.invitations.list(existing.id, S, 'received', 'pending', 1, 20)).total).toBe(0);
    });

    it('a crash between accepting the invitation and writing the relationship is finished by retry or sweep', async () => {
      const inv = await w.invitations.invite(w.operator.id, S, { merchant_id: existing.id });
      // The first write of an acceptance happened, then the process died.
      await w.invRepo.closePending(inv.id, 'accepted', new Date(w.clock.now), { relationshipId: 77 });
      await expect(w.lookups.resolveSplit(w.operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
      expect(await w.invitations.completeAcceptances()).toBe(0); // not old enough yet
      w.clock.now += ACCEPTANCE_REPAIR_AFTER_MS;
      expect(await w.invitations.completeAcceptances()).toBe(1);
      expect(await w.lookups.resolveSplit(w.operator.id, existing.id, S)).toMatchObject({
        active: true,
        relationship_id: 77,
      });
      expect(await w.invitations.completeAcceptances()).toBe(0);
      // The business retrying its accept gets the same relationship, never a second one.
      expect((await w.invitations.accept(existing.id, S, inv.id)).relationship.id).toBe(77);
      expect(w.relRepo.docs.size).toBe(1);
    });
  });
});
