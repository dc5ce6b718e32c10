import { PlatformError } from '@ppay/kernel';
import { toWire } from '@ppay/runtime';
import { relationshipResource } from '../relationships/relationship';
import { businessFields } from '../relationships/relationships.handlers';
import { merchantInMode, pageOf, pagination, positive, type MarketplaceHandlers } from '../requests.handlers';
import type { CreateOrLink } from './create-or-link';
import {
  INVITATION_STATUSES,
  invitationResource,
  type InvitationRecord,
  type InvitationStatus,
  type InvitationViewer,
} from './invitation';
import type { InvitationService } from './invitations';

const invitation = (inv: InvitationRecord, viewer: InvitationViewer) =>
  toWire(invitationResource(inv, new Date(), viewer));
const toOperator = (inv: InvitationRecord) => invitation(inv, 'operator');
const toBusiness = (inv: InvitationRecord) => invitation(inv, 'business');

/** The operator's invitations of existing businesses and the invited business's answers. */
export function invitationHandlers(invitations: InvitationService, createOrLink: CreateOrLink): MarketplaceHandlers {
  return {
    async CreateSubMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      if (req.merchant_id) {
        throw new PlatformError('VALIDATION_FAILED', 'An existing business is invited (InviteMerchant)', {
          param: 'merchant_id',
        });
      }
      const outcome = await createOrLink.create(who.merchantId, who.mode, businessFields(req));
      return 'relationship' in outcome
        ? { relationship: toWire(relationshipResource(outcome.relationship)) }
        : { invitation: toOperator(outcome.invitation) };
    },
    async InviteMerchant(req, { caller }) {
      const who = merchantInMode(caller);
      return toOperator(
        await invitations.invite(who.merchantId, who.mode, {
          ...businessFields(req),
          merchant_id: positive(req.merchant_id, 'merchant_id'),
        }),
      );
    },
    async AcceptInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return toWire(relationshipResource(await invitations.accept(who.merchantId, who.mode, req.invite_token)));
    },
    async DeclineInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return toBusiness(await invitations.decline(who.merchantId, who.mode, req.invite_token));
    },
    async CancelInvitation(req, { caller }) {
      const who = merchantInMode(caller);
      return toOperator(await invitations.cancel(who.merchantId, who.mode, req.invite_token));
    },
    async ListInvitations(req, { caller }) {
      const who = merchantInMode(caller);
      const direction = req.direction || 'received';
      if (direction !== 'received' && direction !== 'sent') {
        throw new PlatformError('VALIDATION_FAILED', 'direction must be one of: received, sent', {
          param: 'direction',
        });
      }
      const status = (req.status || undefined) as InvitationStatus | undefined;
      if (status !== undefined && !INVITATION_STATUSES.includes(status)) {
        throw new PlatformError('VALIDATION_FAILED', `status must be one of: ${INVITATION_STATUSES.join(', ')}`, {
          param: 'status',
        });
      }
      const { page, limit } = pageOf(req);
      const { items, total } = await invitations.list(who.merchantId, who.mode, direction, status, page, limit);
      const view = direction === 'sent' ? toOperator : toBusiness;
      return { invitations: items.map(view), pagination: pagination(page, limit, total) };
    },
  };
}
