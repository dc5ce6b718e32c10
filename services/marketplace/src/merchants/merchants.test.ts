import { MemoryMerchants } from '../memory-ports.test-util';
import { MerchantService } from './merchants';

describe('MerchantService.updateSettings', () => {
  let repo: MemoryMerchants;
  let merchants: MerchantService;
  let id: number;

  beforeEach(async () => {
    repo = new MemoryMerchants();
    merchants = new MerchantService(repo);
    id = (await merchants.create({ email: 'fees@x.co', country: 'NG', baseline_currency: 'NGN' })).id;
  });

  it('starts with the merchant absorbing fees, and the created event says so', async () => {
    expect(await merchants.get(id)).toMatchObject({ customer_pays_fees: false, settings_version: 0 });
    expect(repo.events[0]).toMatchObject({ subject: 'merchants.created' });
    expect(repo.events[0]!.data).toMatchObject({ customer_pays_fees: false });
  });

  it('bumps the version and publishes merchants.settings_updated on a change, and nothing on a no-op', async () => {
    const updated = await merchants.updateSettings(id, { customer_pays_fees: true });
    expect(updated).toMatchObject({ customer_pays_fees: true, settings_version: 1 });
    expect(updated.settings_updated_at).toBeInstanceOf(Date);
    const event = repo.events.at(-1)!;
    expect(event.subject).toBe('merchants.settings_updated');
    expect(event.data).toEqual({ merchant_id: id, customer_pays_fees: true, settings_version: 1 });

    const before = repo.events.length;
    expect(await merchants.updateSettings(id, { customer_pays_fees: true })).toMatchObject({ settings_version: 1 });
    expect(await merchants.updateSettings(id, {})).toMatchObject({ settings_version: 1 });
    expect(repo.events).toHaveLength(before);
    expect((await merchants.updateSettings(id, { customer_pays_fees: false })).settings_version).toBe(2);
  });

  it('retries when another writer changed the settings between read and write', async () => {
    const realUpdate = repo.updateSettings.bind(repo);
    let raced = false;
    repo.updateSettings = async (mid, expected, settings, event) => {
      if (!raced) {
        raced = true;
        // A concurrent request turns the setting on first.
        repo.docs.get(mid)!.settings_version += 1;
        repo.docs.get(mid)!.customer_pays_fees = true;
        return null;
      }
      return realUpdate(mid, expected, settings, event);
    };
    // After the retry the requested value is already there: nothing left to write.
    expect(await merchants.updateSettings(id, { customer_pays_fees: true })).toMatchObject({
      customer_pays_fees: true,
      settings_version: 1,
    });
  });

  it('gives up with CONFLICT when it keeps losing the race', async () => {
    repo.updateSettings = async () => null;
    await expect(merchants.updateSettings(id, { customer_pays_fees: true })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});
