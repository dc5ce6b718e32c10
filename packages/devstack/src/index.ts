export * from './paths';
export * from './platform';
export * from './secrets';
export * from './tokens';
export * from './merchants';
export * from './kyc-fixtures';
export * from './hosted-checkout';
export * from './stripe-mock';
