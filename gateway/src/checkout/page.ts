import { formatMoney, type Money } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import { escapeHtml, hostedLayout } from '../http/hosted-page';

/**
 * The hosted checkout page (spec 4.2 payment_url): server-rendered HTML, no JavaScript, no external
 * assets. Everything that comes from a partner or a customer is escaped; the one inline stylesheet
 * carries the response's CSP nonce.
 */
type View = types.payments.CheckoutView__Output;

/** A wire Money for display; payments always sends the view's amounts (a missing one shows nothing). */
const money = (value: Money | null | undefined) => (value ? escapeHtml(formatMoney(value)) : '');

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f4f5f7;color:#1a1f36}
.banner{background:#ffb020;color:#3d2a00;text-align:center;font-weight:600;font-size:13px;letter-spacing:.04em;padding:6px}
main{max-width:460px;margin:32px auto;padding:0 16px}
.card{background:#fff;border-radius:10px;box-shadow:0 2px 10px rgba(26,31,54,.08);padding:24px;margin-bottom:16px}
.merchant{font-size:14px;color:#697386;margin:0 0 4px}
h1{font-size:20px;margin:0 0 16px}
table.sum{width:100%;border-collapse:collapse;font-size:15px}
table.sum td{padding:4px 0}
table.sum td.v{text-align:right;font-variant-numeric:tabular-nums}
table.sum tr.total td{border-top:1px solid #e3e8ee;padding-top:10px;font-weight:700;font-size:18px}
.muted{color:#697386;font-size:13px}
label{display:block;font-size:13px;font-weight:600;margin:12px 0 4px;color:#3c4257}
input{width:100%;padding:10px 12px;border:1px solid #cfd7df;border-radius:6px;font-size:16px}
input:focus,select:focus{outline:2px solid #635bff;border-color:#635bff}
select{width:100%;padding:10px 12px;border:1px solid #cfd7df;border-radius:6px;font-size:16px;background:#fff}
fieldset{border:0;padding:0;margin:0 0 8px}
.row{display:flex;gap:12px}.row>div{flex:1}
button{width:100%;border:0;border-radius:6px;padding:12px;font-size:16px;font-weight:600;cursor:pointer;margin-top:16px}
button.pay{background:#635bff;color:#fff}
button.cancel{background:transparent;color:#635bff;margin-top:8px}
.error{background:#fdecea;color:#a41c1c;border-radius:6px;padding:10px 12px;margin:0 0 12px;font-size:14px}
.ok{color:#0e7a3a}
table.cards{width:100%;border-collapse:collapse;font-size:13px}
table.cards td{padding:3px 0;vertical-align:top}
table.cards td:first-child{padding-right:16px}
table.cards code{font-size:13px;white-space:nowrap}
h2{font-size:15px;margin:0 0 8px}
table.plan{width:100%;border-collapse:collapse;font-size:14px;margin-top:12px}
table.plan th{text-align:left;font-size:12px;color:#697386;font-weight:600;padding:4px 0;border-bottom:1px solid #e3e8ee}
table.plan td{padding:4px 0}
table.plan td.v,table.plan th.v{text-align:right;font-variant-numeric:tabular-nums}
footer{text-align:center;font-size:12px;color:#8792a2;margin:16px 0}
`;

function layout(title: string, nonce: string, body: string, sandbox: boolean): string {
  return hostedLayout({
    title,
    nonce,
    style: STYLE,
    body,
    sandboxBanner: sandbox ? 'SANDBOX — test mode: no real money moves' : null,
    footer: 'Secure checkout by Partner Payments',
  });
}

export function merchantName(v: View): string {
  return v.business_name || `Merchant #${v.merchant_id}`;
}

function summary(v: View): string {
  const frequency =
    v.payment_type === 'subscription' && v.subscription_frequency_key
      ? `<p class="muted">Subscription, billed ${escapeHtml(v.subscription_frequency_key)}</p>`
      : '';
  const fee = money(v.fee_details?.fee);
  const feeRow = v.customer_pays_fees
    ? `<tr><td>Transaction fee</td><td class="v" data-testid="fee">${fee}</td></tr>`
    : `<tr><td>Transaction fee <span class="muted">(paid by the merchant)</span></td><td class="v" data-testid="fee">${fee}</td></tr>`;
  return `<p class="merchant" data-testid="merchant">${escapeHtml(merchantName(v))}</p>
<h1 data-testid="product">${escapeHtml(v.product_name)}</h1>
${goodsLine(v)}
${frequency}
<table class="sum">
<tr><td>Price</td><td class="v" data-testid="price">${money(v.fee_details?.base)}</td></tr>
${feeRow}
<tr class="total"><td>${v.installments ? (v.status === 'pending' ? 'Due today' : 'First payment') : 'Total due'} (<span data-testid="currency">${escapeHtml(v.amount?.currency ?? '')}</span>)</td><td class="v" data-testid="amount">${money(v.amount)}</td></tr>
</table>
${installmentPlan(v)}`;
}

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/**
 * An installment session's schedule (issue 26), before the customer pays: each part's date and what is
 * charged then, in the customer's currency. Part 1 is what this page charges; the dates are counted from
 * today (the plan is anchored at the payment).
 */
function installmentPlan(v: View): string {
  const plan = v.installments;
  if (!plan) return '';
  const rows = plan.schedule
    .map((p) => {
      const due = new Date(p.due_at);
      // Before payment part 1 is today's; once paid, every part shows its date (part 1: the payment's).
      const today = p.number === 1 && v.status === 'pending';
      const when = today ? 'Today' : Number.isNaN(due.getTime()) ? '' : escapeHtml(DAY.format(due));
      return `<tr data-testid="installment"><td>${p.number} of ${plan.count}</td><td data-testid="installment-date">${when}</td><td class="v" data-testid="installment-amount">${money(p.total)}</td></tr>`;
    })
    .join('');
  const fees = v.customer_pays_fees ? ' Each payment includes its transaction fee.' : '';
  return `<p class="muted" data-testid="installments-summary">Paid in ${plan.count} ${escapeHtml(plan.interval)} installments of ${money(plan.total)} in total.${fees} The card is saved for the later payments.</p>
<table class="plan" data-testid="installments"><tr><th>Payment</th><th>Date</th><th class="v">Amount</th></tr>${rows}</table>`;
}

function testCards(v: View): string {
  if (!v.test_cards.length) return '';
  const rows = v.test_cards
    .map((c) => `<tr><td><code>${escapeHtml(c.number)}</code></td><td>${escapeHtml(c.description)}</td></tr>`)
    .join('');
  return `<section class="card" data-testid="test-cards"><h2>Sandbox test cards</h2>
<p class="muted">Any future expiry date (e.g. 12/34) and any 3-digit CVC.</p>
<table class="cards">${rows}</table></section>`;
}

export interface PageOptions {
  nonce: string;
  error?: string;
  /** Values to put back in the form after a decline (never the card number). */
  name?: string;
  shipping?: Record<string, string>;
  /** The units are gone: no form, nothing was charged. */
  soldOut?: boolean;
}

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });

/** A physical product's line: the variation, how many at what price, and shipping (product currency). */
function goodsLine(v: View): string {
  const g = v.goods;
  if (!g) return '';
  const variation = g.variation ? ` — ${escapeHtml(g.variation.name)}` : '';
  return `<p class="muted" data-testid="goods">${g.quantity} × ${money(g.unit_price)}${variation}; shipping ${money(g.shipping_fee)}</p>`;
}

/** The shipping address fields (a physical product): where it may ship is the country list. */
function shippingFields(v: View, values: Record<string, string> = {}): string {
  const g = v.goods;
  if (!g) return '';
  const input = (field: string, label: string, max: number, required = false) =>
    `<label for="ship_${field}">${label}</label><input id="ship_${field}" name="ship_${field}" maxlength="${max}" value="${escapeHtml(values[field] ?? '')}"${required ? ' required' : ''}>`;
  const options = g.ships_to
    .map((c) => {
      const selected = (values.country ?? '').toUpperCase() === c ? ' selected' : '';
      return `<option value="${escapeHtml(c)}"${selected}>${escapeHtml(COUNTRY_NAMES.of(c) ?? c)}</option>`;
    })
    .join('');
  return `<fieldset data-testid="shipping"><h2>Shipping address</h2>
<p class="muted">Ships to ${escapeHtml(g.ships_to.map((c) => COUNTRY_NAMES.of(c) ?? c).join(', '))}.</p>
${input('name', 'Full name', 200, true)}
${input('line1', 'Address line 1', 200, true)}
${input('line2', 'Address line 2 (optional)', 200)}
<div class="row"><div>${input('city', 'City', 100, true)}</div><div>${input('state', 'State / region', 100)}</div></div>
<div class="row"><div>${input('postal_code', 'Postal code', 20)}</div><div><label for="ship_country">Country</label><select id="ship_country" name="ship_country" required>${options}</select></div></div>
${input('phone', 'Phone (optional)', 30)}
</fieldset>`;
}

export function renderCheckout(v: View, o: PageOptions): string {
  const id = encodeURIComponent(v.session_id);
  const sandbox = v.mode === 'sandbox';
  if (v.status === 'completed') return renderCompleted(v, o.nonce);
  if (v.status === 'expired') {
    return layout(
      'Checkout expired',
      o.nonce,
      `<section class="card" data-testid="expired">${summary(v)}
<p class="error">This checkout session has expired. Return to ${escapeHtml(merchantName(v))} to start again.</p></section>`,
      sandbox,
    );
  }
  if (v.status === 'failed') {
    return layout(
      'Payment failed',
      o.nonce,
      `<section class="card" data-testid="failed">${summary(v)}
<p class="error">This payment could not be completed${v.last_decline_message ? `: ${escapeHtml(v.last_decline_message)}` : ''}. Return to ${escapeHtml(merchantName(v))} to try again.</p></section>`,
      sandbox,
    );
  }
  if (!v.payments_enabled) {
    return layout(
      'Checkout unavailable',
      o.nonce,
      `<section class="card" data-testid="unavailable">${summary(v)}
<p class="error">This checkout is paid on the payment processor's page. Return to ${escapeHtml(merchantName(v))} to continue.</p></section>`,
      sandbox,
    );
  }
  const error = o.error ? `<p class="error" role="alert" data-testid="error">${escapeHtml(o.error)}</p>` : '';
  if (o.soldOut) {
    return layout(
      'Sold out',
      o.nonce,
      `<section class="card" data-testid="sold-out">${summary(v)}${error}</section>`,
      sandbox,
    );
  }
  const expires = new Date(v.expires_at);
  const expiresText = Number.isNaN(expires.getTime())
    ? ''
    : `<p class="muted">This checkout expires at ${escapeHtml(expires.toISOString().slice(11, 16))} UTC.</p>`;
  const body = `<section class="card">${summary(v)}</section>
<section class="card">
${error}
<form method="post" action="/checkout/${id}/pay" autocomplete="off" data-testid="pay-form">
<p class="muted">Paying as ${escapeHtml(v.customer_email)}</p>
${shippingFields(v, o.shipping)}
<label for="name">Name on card</label>
<input id="name" name="name" maxlength="100" value="${escapeHtml(o.name ?? '')}" autocomplete="cc-name">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" maxlength="23" placeholder="1234 1234 1234 1234" required autocomplete="cc-number">
<div class="row">
<div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" maxlength="7" placeholder="MM/YY" required autocomplete="cc-exp"></div>
<div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" maxlength="4" placeholder="123" required autocomplete="cc-csc"></div>
</div>
<button class="pay" type="submit" data-testid="pay">Pay ${money(v.amount)}</button>
</form>
<form method="post" action="/checkout/${id}/cancel">
<button class="cancel" type="submit" data-testid="cancel">Cancel and return to ${escapeHtml(merchantName(v))}</button>
</form>
${expiresText}
</section>
${sandbox ? testCards(v) : ''}`;
  return layout(`Pay ${merchantName(v)}`, o.nonce, body, sandbox);
}

export function renderCompleted(v: View, nonce: string): string {
  return layout(
    'Payment received',
    nonce,
    `<section class="card" data-testid="completed">${summary(v)}
<p class="ok"><strong>Payment received.</strong> Thank you — you can close this window.</p></section>`,
    v.mode === 'sandbox',
  );
}

export function renderCancelled(v: View, nonce: string): string {
  return layout(
    'Checkout cancelled',
    nonce,
    `<section class="card" data-testid="cancelled">${summary(v)}
<p>You cancelled this checkout. No payment was taken — you can close this window.</p></section>`,
    v.mode === 'sandbox',
  );
}

export function renderMessage(title: string, text: string, nonce: string): string {
  return layout(
    title,
    nonce,
    `<section class="card" data-testid="message"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></section>`,
    false,
  );
}
