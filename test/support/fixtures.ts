/** A plain ₦5,000 charge without conversion: the naira gateway, fee 1.5% + ₦100 = ₦175 (17,500 kobo). */
export const NGN_CHARGE = {
  amount: 500_000,
  currency: 'NGN',
  total_amount: 500_000,
  total_currency: 'NGN',
  customer: { email: 'c@example.com' },
};
