export * from './catalogue';
export * from './kyc-payloads';
export * from './merchant-payloads';
export * from './payment-payloads';
export * from './subscription-payloads';
export * from './outbox-entry';
