import { countryName } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { escapeHtml, hostedLayout } from '../http/hosted-page';

/**
 * The hosted onboarding page behind a connected-account `onboarding_url` (spec 4.9): server-rendered
 * HTML, no JavaScript, no external assets, every partner value escaped, one inline stylesheet carrying
 * the response's CSP nonce. In sandbox it plays the card gateway's onboarding: the merchant completes
 * it (the gateway verifies the account), abandons it, or — sandbox only — has it declined.
 */
type View = types.kyc.OnboardingLinkView__Output;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f4f5f7;color:#1a1f36}
.banner{background:#ffb020;color:#3d2a00;text-align:center;font-weight:600;font-size:13px;letter-spacing:.04em;padding:6px}
main{max-width:520px;margin:32px auto;padding:0 16px}
.card{background:#fff;border-radius:10px;box-shadow:0 2px 10px rgba(26,31,54,.08);padding:24px;margin-bottom:16px}
.merchant{font-size:14px;color:#697386;margin:0 0 4px}
h1{font-size:20px;margin:0 0 16px}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:0 0 16px;font-size:15px}
dt{color:#697386}dd{margin:0}
.muted{color:#697386;font-size:13px}
button{width:100%;border:0;border-radius:6px;padding:12px;font-size:16px;font-weight:600;cursor:pointer;margin-top:12px}
button.primary{background:#635bff;color:#fff}
button.secondary{background:#eef0f4;color:#1a1f36}
button.danger{background:transparent;color:#a41c1c;border:1px solid #f0c2c2}
footer{text-align:center;font-size:12px;color:#8792a2;margin:16px 0}
`;

function layout(title: string, nonce: string, body: string, sandbox: boolean): string {
  return hostedLayout({
    title,
    nonce,
    style: STYLE,
    body,
    sandboxBanner: sandbox ? 'SANDBOX — test onboarding: no real account is verified' : null,
    footer: 'Secure onboarding by Partner Payments',
  });
}

const name = (v: View) => v.business_name || `Merchant #${v.merchant_id}`;

export function renderOnboarding(v: View, token: string, nonce: string): string {
  const sandbox = v.mode === 'sandbox';
  const update = v.purpose === 'update';
  const action = `/onboarding/${encodeURIComponent(token)}`;
  const country = countryName(v.country) ?? v.country;
  const decline =
    sandbox && !update
      ? `<button class="danger" type="submit" name="action" value="reject" data-testid="decline">Simulate a declined verification</button>`
      : '';
  return layout(
    update ? 'Update payout details' : 'Verify your business',
    nonce,
    `<section class="card" data-testid="onboarding">
<p class="merchant" data-testid="merchant">${escapeHtml(name(v))}</p>
<h1>${update ? 'Update your payout details' : 'Verify your business to get paid'}</h1>
<dl>
<dt>Country</dt><dd data-testid="country">${escapeHtml(country)}</dd>
<dt>Business type</dt><dd data-testid="business-type">${escapeHtml(v.business_type.replace('_', ' '))}</dd>
<dt>Payouts in</dt><dd data-testid="currency">${escapeHtml(v.settlement_currency)}</dd>
<dt>Gateway region</dt><dd data-testid="region">${escapeHtml(v.gateway_region)}</dd>
<dt>Account</dt><dd data-testid="account"><code>${escapeHtml(v.gateway_account_id)}</code></dd>
</dl>
${sandbox ? '<p class="muted">Sandbox: completing this page verifies the test account at once.</p>' : ''}
<form method="post" action="${action}" data-testid="onboarding-form">
<button class="primary" type="submit" name="action" value="complete" data-testid="complete">${update ? 'Save payout details' : 'Complete onboarding'}</button>
${decline}
<button class="secondary" type="submit" name="action" value="abandon" data-testid="abandon">Not now — finish later</button>
</form>
<p class="muted">This link can be used once and expires at ${escapeHtml(new Date(v.expires_at).toISOString().slice(11, 16))} UTC.</p>
</section>`,
    sandbox,
  );
}

export function renderOnboardingMessage(title: string, text: string, nonce: string): string {
  return layout(
    title,
    nonce,
    `<section class="card" data-testid="message"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></section>`,
    false,
  );
}
