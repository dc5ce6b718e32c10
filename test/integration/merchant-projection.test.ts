import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { PlatformError } from '@ppay/kernel';
import {
  merchantProfileModel,
  ProjectedMerchantDirectory,
} from '../../services/payments/src/merchants/merchant-directory.repo';
import { testInfraUrls } from '../support/infra';

/**
 * payments' merchant profiles against the real MongoDB-wire server: merchants.created and
 * merchants.settings_updated come through two consumers, so they arrive in any order, twice, or
 * at the same moment, and the newest settings must win.
 */
describe('payments merchant projection (created + settings events in any order)', () => {
  let conn: Connection;
  let directory: ProjectedMerchantDirectory;
  let nextId = 5000;
  const profile = (merchant_id: number) => ({
    merchant_id,
    country: 'NG',
    baseline_currency: 'NGN',
    is_marketplace_operator: false,
    business_name: 'Shop',
  });
  /** What the merchants.created consumer does. */
  const created = async (id: number, customerPaysFees = false) => {
    await directory.upsertProfile(profile(id));
    await directory.applySettings(id, 0, { customer_pays_fees: customerPaysFees });
  };

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(testInfraUrls().mongoUri, { dbName: `t${randomBytes(3).toString('hex')}_projection` })
      .asPromise();
    directory = new ProjectedMerchantDirectory(merchantProfileModel(conn), 300, 0);
  });
  afterAll(async () => {
    await conn?.dropDatabase();
    await conn?.close();
  });

  it('created, then settings: the settings apply', async () => {
    const id = nextId++;
    await created(id);
    await directory.applySettings(id, 1, { customer_pays_fees: true });
    expect(await directory.get(id)).toMatchObject({ country: 'NG', customer_pays_fees: true });
  });

  it('settings overtaking the created event are kept, and the merchant is unknown until created arrives', async () => {
    const id = nextId++;
    await directory.applySettings(id, 1, { customer_pays_fees: true });
    await expect(directory.get(id)).rejects.toMatchObject({ code: 'MERCHANT_NOT_FOUND' } as Partial<PlatformError>);
    await created(id, false);
    expect(await directory.get(id)).toMatchObject({ country: 'NG', customer_pays_fees: true });
  });

  it('an older version redelivered after a newer one changes nothing; the same event twice is harmless', async () => {
    const id = nextId++;
    await created(id);
    await directory.applySettings(id, 2, { customer_pays_fees: false });
    await directory.applySettings(id, 1, { customer_pays_fees: true });
    await directory.applySettings(id, 2, { customer_pays_fees: false });
    await created(id);
    expect(await directory.get(id)).toMatchObject({ customer_pays_fees: false });
    const doc = await conn.collection('merchant_profiles').findOne({ _id: id as never });
    expect(doc).toMatchObject({ settings_version: 2 });
  });

  it('created and settings at the same moment: the settings win every time', async () => {
    const ids = Array.from({ length: 20 }, () => nextId++);
    await Promise.all(
      ids.map((id) => Promise.all([created(id), directory.applySettings(id, 1, { customer_pays_fees: true })])),
    );
    const docs = await conn
      .collection('merchant_profiles')
      .find({ _id: { $in: ids as never[] } })
      .toArray();
    expect(docs).toHaveLength(20);
    for (const doc of docs) expect(doc).toMatchObject({ country: 'NG', customer_pays_fees: true, settings_version: 1 });
  });
});
