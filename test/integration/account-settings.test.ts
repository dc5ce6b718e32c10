import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { NGN_CHARGE } from '../support/fixtures';

/**
 * The customer-pays-fees business setting (docs/decisions.md "Account settings"): changed with the
 * dashboard user token, carried to payments by merchants.* events, applied to new charges and
 * sessions and to the wallet credit.
 */
describe('account settings: customer pays fees', () => {
  let t: TestPlatform;
  const SETTINGS = '/api/v1/partner/account/settings';
  const ngnCharge = NGN_CHARGE;
  const preview = (key: string) =>
    http(t.url, 'POST', '/api/v1/partner/payments/charge', {
      headers: { 'x-api-key': key },
      body: { ...ngnCharge, preview: true },
    });
  const patch = (token: string, body: unknown) =>
    http(t.url, 'PATCH', SETTINGS, { headers: { 'x-id-key': token }, body });

  beforeAll(async () => {
    t = await startTestPlatform('account-settings');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('reads and changes the setting with the user token only; bad input is refused and changes nothing', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    const read = await http(t.url, 'GET', SETTINGS, { headers: { 'x-id-key': m.user_token } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      success: true,
      data: { merchant_id: m.merchant_id, customer_pays_fees: false, updated_at: null },
    });

    // An API key (of either mode) cannot change business settings.
    const withKey = await http(t.url, 'PATCH', SETTINGS, {
      headers: { 'x-api-key': m.api_key },
      body: { customer_pays_fees: true },
    });
    expect(withKey.status).toBe(401);
    expect(withKey.body.success).toBe(false);
    expect((await http(t.url, 'GET', SETTINGS, { headers: { 'x-id-key': 'not-a-token' } })).status).toBe(401);

    const notBoolean = await patch(m.user_token, { customer_pays_fees: 'yes' });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.error).toMatchObject({ code: 'VALIDATION_FAILED', param: 'customer_pays_fees' });
    const unknown = await patch(m.user_token, { customer_pays_fee: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Unknown field customer_pays_fee');

    // An empty change returns the settings as they are (Stripe-style update).
    expect((await patch(m.user_token, {})).body.data).toMatchObject({ customer_pays_fees: false, updated_at: null });

    const changed = await patch(m.user_token, { customer_pays_fees: true });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ merchant_id: m.merchant_id, customer_pays_fees: true });
    expect(Date.parse(changed.body.data.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    const account = await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': m.api_key } });
    expect(account.body.data).toMatchObject({ merchant_id: m.merchant_id, customer_pays_fees: true });
  });

  it('charges and sessions add the fee on top once the customer pays it; the merchant is credited the full price', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN' });
    expect((await preview(m.api_key)).body.data.customer).toMatchObject({
      base_amount: 500_000,
      transaction_fee: 17_500,
      total_charged: 500_000,
      pays_fees: false,
    });

    await patch(m.user_token, { customer_pays_fees: true });
    // payments learns of the change from merchants.settings_updated.
    expect(await eventually(async () => (await preview(m.api_key)).body.data.customer.pays_fees === true, 10_000)).toBe(
      true,
    );
    expect((await preview(m.api_key)).body.data.customer).toEqual({
      currency: 'NGN',
      base_amount: 500_000,
      transaction_fee: 17_500,
      total_charged: 517_500,
      pays_fees: true,
    });

    const session = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
      headers: { 'x-api-key': m.api_key },
      body: { amount: 500_000, currency: 'NGN', product_name: 'Pro plan', customer: { email: 'c@example.com' } },
    });
    expect(session.status).toBe(200);
    expect(session.body.data).toMatchObject({
      amount: 517_500,
      fee_details: {
        base_product_price: 500_000,
        transaction_fee: 17_500,
        total_amount: 517_500,
        customer_pays_fees: true,
      },
    });

    const charge = await http(t.url, 'POST', '/api/v1/partner/payments/charge', {
      headers: { 'x-api-key': m.api_key },
      body: ngnCharge,
    });
    expect(charge.body.data.fee_details).toEqual({
      base_amount: 500_000,
      transaction_fee: 17_500,
      total_amount: 517_500,
      customer_pays_fees: true,
    });
    await http(t.url, 'POST', `/api/v1/partner/sandbox/charges/${charge.body.data.charge_id}/succeed`, {
      headers: { 'x-api-key': m.api_key },
    });
    expect(await eventually(async () => (await t.walletBalances(m.merchant_id)).length === 1, 10_000)).toBe(true);
    // The customer paid the fee, so the merchant keeps its whole price.
    expect(await t.walletBalances(m.merchant_id)).toEqual([
      { currency: 'NGN', balance: 500_000, total_credits: 500_000, total_debits: 0, transaction_count: 1 },
    ]);

    // Turning it off again applies to the next charge.
    await patch(m.user_token, { customer_pays_fees: false });
    expect(
      await eventually(async () => (await preview(m.api_key)).body.data.customer.pays_fees === false, 10_000),
    ).toBe(true);
    expect((await preview(m.api_key)).body.data.customer.total_charged).toBe(500_000);
  });

  it('a merchant created with the setting on (CLI --customer-pays-fees) charges the fee from the first preview', async () => {
    const m = await t.merchant({ country: 'NG', currency: 'NGN', customerPaysFees: true });
    expect(m.customer_pays_fees).toBe(true);
    expect(
      await eventually(async () => (await preview(m.api_key)).body.data?.customer?.pays_fees === true, 10_000),
    ).toBe(true);
    // Both events (created, then settings v1) are applied whatever order payments saw them in.
    const profile = await (
      await t.db('payments')
    )
      .collection('merchant_profiles')
      .findOne({ _id: m.merchant_id as never });
    expect(profile).toMatchObject({ country: 'NG', customer_pays_fees: true, settings_version: 1 });
  });
});
