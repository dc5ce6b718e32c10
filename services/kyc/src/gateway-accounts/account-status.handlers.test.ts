import { PlatformError } from '@ppay/kernel';
import { MemoryCases } from '../memory-ports.test-util';
import { ConnectedAccountStatusService } from './account-status';
import { accountStatusHandlers, DUE_MAX } from './account-status.handlers';

type Call = (req: Record<string, unknown>, ctx: { caller: Record<string, unknown> }) => Promise<unknown>;

function handler() {
  const cases = new MemoryCases();
  const call = accountStatusHandlers(new ConnectedAccountStatusService({ cases }))
    .ApplyConnectedAccountEvent as unknown as Call;
  return (req: Record<string, unknown>, auth = 'internal') =>
    call(
      {
        gateway_account_id: 'acct_1A',
        event_id: 'evt_1',
        event_type: 'account.updated',
        occurred_at: '2026-12-01T10:00:00.000Z',
        charges_enabled: true,
        payouts_enabled: true,
        details_submitted: true,
        currently_due: [],
        past_due: [],
        eventually_due: [],
        deauthorized: false,
        ...req,
      },
      { caller: { auth, requestId: 'req_1' } },
    );
}

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw new Error('expected a PlatformError');
  return [err.code, err.param];
};

describe('ApplyConnectedAccountEvent (internal)', () => {
  it('answers not_found for an account no live case has', async () => {
    expect(await handler()({})).toEqual({ outcome: 'not_found', submission_id: 0, status: '' });
  });

  it('is for platform services only', async () => {
    expect(await refusal(handler()({}, 'api_key'))).toEqual(['PERMISSION_DENIED', undefined]);
  });

  it('refuses what would grow a case: long lists, long entries, a bad time or no account', async () => {
    const apply = handler();
    const many = Array.from({ length: DUE_MAX + 1 }, (_, i) => `r${i}`);
    expect(await refusal(apply({ currently_due: many }))).toEqual(['VALIDATION_FAILED', 'currently_due']);
    expect(await refusal(apply({ past_due: ['x'.repeat(201)] }))).toEqual(['VALIDATION_FAILED', 'past_due']);
    expect(await refusal(apply({ occurred_at: 'yesterday' }))).toEqual(['VALIDATION_FAILED', 'occurred_at']);
    expect(await refusal(apply({ gateway_account_id: '' }))).toEqual(['VALIDATION_FAILED', 'gateway_account_id']);
    expect(await refusal(apply({ disabled_reason: 'r'.repeat(201) }))).toEqual([
      'VALIDATION_FAILED',
      'disabled_reason',
    ]);
  });
});
