import type { Mode } from '@ppay/kernel';
import type { RelationshipView } from '../relationships/relationship';
import type { LinkInput, RelationshipService } from '../relationships/relationships';
import type { InvitationRecord } from './invitation';
import type { InvitationService } from './invitations';

/**
 * POST /marketplace/merchants with new business fields (CreateSubMerchant): the new business joins at
 * once, or, when its e-mail is registered to a business that exists already, that business is invited
 * and joins if it accepts. Both are accepted requests; neither says which e-mails have accounts
 * (Hardening 2 item 11).
 */
export class CreateOrLink {
  constructor(
    private readonly relationships: RelationshipService,
    private readonly invitations: InvitationService,
  ) {}

  async create(
    operatorId: number,
    mode: Mode,
    input: LinkInput,
  ): Promise<{ relationship: RelationshipView } | { invitation: InvitationRecord }> {
    const outcome = await this.relationships.create(operatorId, mode, input);
    if (outcome.kind === 'created') return { relationship: outcome.view };
    const invitation = await this.invitations.inviteRegistered(
      operatorId,
      mode,
      outcome.merchantId,
      input.commission_rate,
    );
    return { invitation };
  }
}
