import type { Mode } from '@ppay/kernel';
import { CreateOrLink } from './invitations/create-or-link';
import { MemoryInvitations } from './invitations/memory-invitations.test-util';
import { InvitationService } from './invitations/invitations';
import { KycProjection } from './kyc-projection/kyc-projection';
import { MemoryMerchants, MemoryRelationships } from './memory-ports.test-util';
import { MerchantService } from './merchants/merchants';
import { MembershipSync } from './relationships/membership-sync';
import { RelationshipService } from './relationships/relationships';
import { SubMerchantLookups } from './sub-merchant-lookups/sub-merchant-lookups';

export const S: Mode = 'sandbox';
export const L: Mode = 'live';

/** A new business's fields, as an operator sends them. */
export const business = (email: string) => ({ email, country: 'NG', baseline_currency: 'NGN' });

/**
 * The marketplace use cases wired as main.ts wires them, over in-memory repositories, with a clock
 * the test moves (`clock.now`) and one operator whose marketplace is not set up yet.
 */
export async function inMemoryMarketplace() {
  const clock = { now: Date.parse('2026-11-23T10:00:00Z') };
  const now = () => new Date(clock.now);
  const merchantRepo = new MemoryMerchants();
  const relRepo = new MemoryRelationships();
  const invRepo = new MemoryInvitations();
  const merchants = new MerchantService(merchantRepo);
  const membership = new MembershipSync(merchants, relRepo);
  const relationships = new RelationshipService(merchants, relRepo, membership, now);
  const invitations = new InvitationService(
    { merchants, relationships: relRepo, invitations: invRepo, membership },
    now,
  );
  const operator = await merchants.create({ ...business('op@x.co'), is_marketplace_operator: true });
  return {
    clock,
    merchantRepo,
    relRepo,
    invRepo,
    merchants,
    membership,
    relationships,
    invitations,
    createOrLink: new CreateOrLink(relationships, invitations),
    lookups: new SubMerchantLookups(merchants, relationships),
    kyc: new KycProjection(merchantRepo, merchants),
    operator,
    /** The sub-merchant's cached membership of `mode`, read past the cache. */
    membershipOf: async (id: number, mode: Mode = 'sandbox') => (await merchants.fresh(id)).membership?.[mode],
  };
}

export type InMemoryMarketplace = Awaited<ReturnType<typeof inMemoryMarketplace>>;
