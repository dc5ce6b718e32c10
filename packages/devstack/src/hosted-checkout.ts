/**
 * The hosted checkout page's payment form as a customer's browser submits it (application/x-www-form-urlencoded,
 * no redirect followed), for benches and tests that pay many sessions without a browser. A physical product's
 * session needs the `ship_*` fields; DEFAULT_FORM pays with the approving sandbox card and ships to Lagos.
 */
export const DEFAULT_FORM: Readonly<Record<string, string>> = {
  name: 'Ada Obi',
  card_number: '4242424242424242',
  expiry: '12/34',
  cvc: '123',
  ship_name: 'Ada Obi',
  ship_line1: '1 Marina',
  ship_city: 'Lagos',
  ship_country: 'NG',
};

/** 303 paid (redirect), 402 declined, 409 sold out, 400 a field refused: the status and the page. */
export async function submitCheckoutForm(
  baseUrl: string,
  sessionId: string,
  fields: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; page: string }> {
  const res = await fetch(`${baseUrl}/checkout/${sessionId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...DEFAULT_FORM, ...fields }).toString(),
    redirect: 'manual',
    signal,
  });
  return { status: res.status, page: await res.text() };
}
