import type { Money } from './money';

/**
 * Splits `total` into `parts` amounts of its currency's minor unit that add up to it exactly: every
 * part is ⌊total / parts⌋ and the remainder goes on the first part (what is paid first, at checkout,
 * never at the end of a schedule). Minor units are whole (cents, kobo; yen for JPY, KRW, VND), so the
 * split is exact whatever the currency's exponent. BigInt arithmetic: a float division of a large
 * amount can round the quotient up.
 */
export function splitMoney(total: Money, parts: number): Money[] {
  if (!Number.isSafeInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer, got ${parts}`);
  if (!Number.isSafeInteger(total.amount) || total.amount < 0) {
    throw new RangeError(`total must be a non-negative integer amount, got ${total.amount}`);
  }
  const whole = BigInt(total.amount);
  const count = BigInt(parts);
  const each = whole / count;
  const first = each + (whole - each * count);
  return Array.from({ length: parts }, (_, i) => ({
    amount: Number(i === 0 ? first : each),
    currency: total.currency,
  }));
}
