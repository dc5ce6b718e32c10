/** Access Bank (044) account number with a valid NUBAN check digit. */
export const SANDBOX_ACCESS_ACCOUNT = '0690123456';

/**
 * A Nigerian individual's KYC submission (spec 4.9) that the sandbox approves at once: a valid NIN,
 * a Nigerian phone and address, and an Access Bank account in the owner's name. Benches and payout
 * suites use it to get a payable sub-merchant.
 */
export function approvableKycSubmission(accountNumber = SANDBOX_ACCESS_ACCOUNT) {
  return {
    id_country: 'NG',
    account_type: 'individual',
    owner: {
      first_name: 'John',
      last_name: 'Adebayo',
      date_of_birth: '1990-05-17',
      phone_number: '08031234567',
      email: 'john@example.com',
      id_type: 'nin',
      id_number: '12345678901',
      id_document_url: 'https://files.example.com/id.png',
      selfie_url: 'https://files.example.com/selfie.png',
      address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '101001', country: 'NG' },
    },
    bank_account: {
      country: 'NG',
      bank_name: 'Access Bank',
      account_number: accountNumber,
      account_name: 'ADEBAYO JOHN',
    },
  };
}
