import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import type { NewMerchant } from '@ppay/devstack';
import { launchChromium, recordingSite } from '../support/browser';
import { http, startTestPlatform, type TestPlatform } from '../support/platform';

/** The marketplace's site: return and refresh pages on 127.0.0.1 that record the visits. */
const marketplaceSite = () =>
  recordingSite('market', 'page', (url) => (url.startsWith('/return') ? 'Welcome back' : 'Refresh'));

async function operatorWithSub(t: TestPlatform, country = 'US', currency = 'USD') {
  const op = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
  const api = (method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': op.api_key }, body });
  expect((await api('POST', '/marketplace/setup', { marketplace_name: 'Makers' })).status).toBe(200);
  const sub = await api('POST', '/marketplace/merchants', {
    email: `sub${randomBytes(5).toString('hex')}@example.com`,
    business_name: 'Brooklyn <Bagels> & Co',
    country,
    baseline_currency: currency,
  });
  expect(sub.status).toBe(201);
  return { op, api, subId: sub.body.data.merchant_id as number };
}

/** The hosted onboarding page of the connected-account route (spec 4.9 onboarding_url) in headless Chromium. */
describe('hosted onboarding page', () => {
  let t: TestPlatform;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof marketplaceSite>>;
  let ctx: { op: NewMerchant; api: Awaited<ReturnType<typeof operatorWithSub>>['api']; subId: number };

  const start = async (extra: Record<string, unknown> = {}) => {
    const res = await ctx.api('POST', `/marketplace/merchants/${ctx.subId}/kyc`, {
      country: 'US',
      business_type: 'registered_business',
      return_url: `${site.url}/return?m=${ctx.subId}`,
      refresh_url: `${site.url}/refresh?m=${ctx.subId}`,
      ...extra,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return res.body.data as { onboarding_url: string; submission_id: number; gateway_account_id: string };
  };
  const kycStatus = async () =>
    (await ctx.api('GET', `/marketplace/merchants/${ctx.subId}/kyc`)).body.data as {
      status: string;
      rejection_reason: string | null;
    };

  beforeAll(async () => {
    site = await marketplaceSite();
    t = await startTestPlatform('onboarding');
    browser = await launchChromium();
  });
  beforeEach(async () => {
    ctx = await operatorWithSub(t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await site?.close();
  });

  it('shows the account under a strict CSP without JavaScript; completing approves and returns to return_url', async () => {
    const s = await start();
    expect(s.onboarding_url).toMatch(new RegExp(`^${t.url}/onboarding/onb_[A-Za-z0-9]{32}$`));
    expect(await kycStatus()).toMatchObject({ status: 'pending_onboarding' });
    const page = await browser.newPage({ javaScriptEnabled: false });
    const res = await page.goto(s.onboarding_url);
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${site.url}`);
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-frame-options']).toBe('DENY');
    await expect(page.textContent('[data-testid=sandbox-banner]')).resolves.toContain('SANDBOX');
    expect(await page.textContent('[data-testid=merchant]')).toBe('Brooklyn <Bagels> & Co');
    expect(await page.textContent('[data-testid=country]')).toBe('United States');
    expect(await page.textContent('[data-testid=currency]')).toBe('USD');
    expect(await page.textContent('[data-testid=region]')).toBe('US');
    expect(await page.textContent('[data-testid=account]')).toBe(s.gateway_account_id);
    expect(await page.locator('script').count()).toBe(0);
    await page.setViewportSize({ width: 900, height: 900 });
    await page.screenshot({ path: '/tmp/onboarding.png', fullPage: true });

    await Promise.all([page.waitForURL(`${site.url}/return**`), page.click('[data-testid=complete]')]);
    expect(new URL(page.url()).searchParams.get('m')).toBe(String(ctx.subId));
    expect(await page.textContent('#page')).toBe('Welcome back');
    expect(await kycStatus()).toMatchObject({ status: 'approved' });

    // Single use: opening the same link again leads to refresh_url, and nothing changes.
    await Promise.all([page.waitForURL(`${site.url}/refresh**`), page.goto(s.onboarding_url)]);
    expect(await page.textContent('#page')).toBe('Refresh');
    expect(await kycStatus()).toMatchObject({ status: 'approved' });
    await page.close();
  });

  it('abandoning returns to return_url and leaves the submission pending; a new link then completes it', async () => {
    const s = await start();
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(s.onboarding_url);
    await Promise.all([page.waitForURL(`${site.url}/return**`), page.click('[data-testid=abandon]')]);
    expect(await kycStatus()).toMatchObject({ status: 'pending_onboarding' });
    // The abandoned link is used up.
    await Promise.all([page.waitForURL(`${site.url}/refresh**`), page.goto(s.onboarding_url)]);
    // The partner's refresh_url asks for a new link (POST …/kyc again): same submission and account; a
    // link superseded by a newer one refreshes too, and the newest one completes.
    const superseded = await start();
    expect(superseded.submission_id).toBe(s.submission_id);
    expect(superseded.gateway_account_id).toBe(s.gateway_account_id);
    const newest = await start();
    await Promise.all([page.waitForURL(`${site.url}/refresh**`), page.goto(superseded.onboarding_url)]);
    await page.goto(newest.onboarding_url);
    await Promise.all([page.waitForURL(`${site.url}/return**`), page.click('[data-testid=complete]')]);
    expect(await kycStatus()).toMatchObject({ status: 'approved' });
    await page.close();
  });

  it('the sandbox gateway can decline: rejected with a reason, and onboarding can start again', async () => {
    const s = await start();
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(s.onboarding_url);
    await Promise.all([page.waitForURL(`${site.url}/return**`), page.click('[data-testid=decline]')]);
    expect(await kycStatus()).toMatchObject({
      status: 'rejected',
      rejection_reason: 'Declined by the connected-account gateway',
    });
    await start();
    expect(await kycStatus()).toMatchObject({ status: 'pending_onboarding' });
    await page.close();
  });

  it('payout setup for a non-African merchant hands out a link that returns to callback_url', async () => {
    const s = await start();
    const res = await ctx.api('POST', `/marketplace/merchants/${ctx.subId}/payout`, {
      callback_url: `${site.url}/return?from=payouts`,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ merchant_id: ctx.subId, baseline_currency: 'USD', country: 'US' });
    const page = await browser.newPage({ javaScriptEnabled: false });
    // The KYC link was superseded by the payout link.
    await Promise.all([page.waitForURL(`${site.url}/refresh**`), page.goto(s.onboarding_url)]);
    await page.goto(res.body.data.onboarding_url);
    await Promise.all([page.waitForURL(`${site.url}/return?from=payouts`), page.click('[data-testid=complete]')]);
    expect(await kycStatus()).toMatchObject({ status: 'approved' });
    const detail = await ctx.api('GET', `/marketplace/merchants/${ctx.subId}/kyc`);
    expect(detail.body.data.payouts_enabled).toBe(true);
    await page.close();
  });

  it('an unknown link is a 404 page', async () => {
    const page = await browser.newPage({ javaScriptEnabled: false });
    const res = await page.goto(`${t.url}/onboarding/onb_${'A'.repeat(32)}`);
    expect(res?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Onboarding link not found');
    await page.close();
  });
});

describe('hosted onboarding page: expiry', () => {
  let t: TestPlatform;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof marketplaceSite>>;
  beforeAll(async () => {
    site = await marketplaceSite();
    t = await startTestPlatform('onboarding-expiry', { envFor: { kyc: { ONBOARDING_LINK_TTL_MS: '1500' } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await site?.close();
  });

  it('an expired link sends the merchant to refresh_url, even from a page opened in time; nothing changes', async () => {
    const { api, subId } = await operatorWithSub(t, 'DE', 'EUR');
    const res = await api('POST', `/marketplace/merchants/${subId}/kyc`, {
      country: 'DE',
      return_url: `${site.url}/return`,
      refresh_url: `${site.url}/refresh`,
    });
    expect(res.body.data).toMatchObject({ settlement_currency: 'EUR', gateway_region: 'EU' });
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(res.body.data.onboarding_url);
    expect(await page.locator('[data-testid=onboarding-form]').count()).toBe(1);
    await new Promise((r) => setTimeout(r, 2_000));
    await Promise.all([page.waitForURL(`${site.url}/refresh`), page.click('[data-testid=complete]')]);
    await Promise.all([page.waitForURL(`${site.url}/refresh`), page.goto(res.body.data.onboarding_url)]);
    const status = await api('GET', `/marketplace/merchants/${subId}/kyc`);
    expect(status.body.data.status).toBe('pending_onboarding');
    await page.close();
  });
});
