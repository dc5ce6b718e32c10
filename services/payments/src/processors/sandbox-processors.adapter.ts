import { createHash } from 'node:crypto';
import { PlatformError, type Mode } from '@ppay/kernel';
import type { ProcessorBreakerOptions } from '@ppay/runtime';
import { GuardedProcessor } from './processor-guard.adapter';
import { PROCESSOR_IDS, type ProcessorGroup } from './processors';
import type {
  AbandonAnswer,
  AbandonIntent,
  CheckoutAuthorization,
  CheckoutIntent,
  CheckoutPayment,
  LookUpAnswer,
  PaymentIntent,
  ProcessorAdapter,
  ProcessorFeature,
  ProcessorAuthorization,
  ProcessorRegistry,
  RefundAnswer,
  RefundIntent,
} from './ports';

/**
 * Sandbox convention (docs/decisions.md, Refunds): a refund whose `reason` is exactly this string is
 * declined by the sandbox processor, so partners can test a failed refund. Live processors ignore it.
 */
export const SANDBOX_DECLINED_REFUND_REASON = 'sandbox_decline';

/**
 * Sandbox processors: deterministic, in-process stand-ins for the three processor groups. They hand
 * back the same kind of data as the real ones (the card route: client secret, publishable key and
 * connected account) but move no money. Outcomes are driven later by test cards or the sandbox
 * endpoints, never by these calls.
 */
class SandboxProcessor implements ProcessorAdapter {
  readonly mode: Mode = 'sandbox';
  readonly features: readonly ProcessorFeature[] = ['charges', 'refunds', 'checkout'];

  constructor(
    readonly group: ProcessorGroup,
    private readonly publishableKey: string,
    /** Simulated processor latency (SANDBOX_INIT_DELAY_MS): lets partners and tests see timeouts. */
    private readonly delayMs = 0,
  ) {}

  get id(): string {
    return PROCESSOR_IDS[this.group];
  }

  async initialise(intent: PaymentIntent): Promise<ProcessorAuthorization> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const digest = createHash('sha256').update(`${this.group}:${intent.charge_id}`).digest('hex');
    const reference = `sbx_${this.group}_${digest.slice(0, 20)}`;
    if (this.group !== 'card') return { processor_reference: reference };
    return {
      processor_reference: reference,
      client_secret: `${reference}_secret_${digest.slice(20, 44)}`,
      publishable_key: this.publishableKey,
      gateway_account_id: `acct_sbx_${intent.merchant_id}`,
    };
  }

  /**
   * A sandbox session is paid on our own hosted page: its reference is derived as a charge's was (the
   * session id in place of the charge id), so sandbox sessions look as they always did.
   */
  async initialiseCheckout(intent: CheckoutIntent): Promise<CheckoutAuthorization> {
    const { processor_reference } = await this.initialise({
      charge_id: intent.session_id,
      merchant_id: intent.merchant_id,
      mode: intent.mode,
      amount: intent.amount,
      customer_email: intent.customer_email,
      description: intent.description,
      callback_url: intent.success_url,
    });
    return { processor_reference, payment_url: null, expires_at: intent.expires_at };
  }

  /** Never asked: a sandbox session is paid on our own page, which knows the card it took. */
  async checkoutPayment(_processorReference: string): Promise<CheckoutPayment> {
    throw new PlatformError('INTERNAL', 'a sandbox session is paid on our own page, never at a processor');
  }

  /** Refunds succeed, except with the documented sandbox reason, which the processor declines. */
  async refund(request: RefundIntent): Promise<RefundAnswer> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (request.reason === SANDBOX_DECLINED_REFUND_REASON) {
      return { status: 'failed', failure_reason: 'declined_by_processor' };
    }
    const digest = createHash('sha256').update(`${this.group}:refund:${request.refund_id}`).digest('hex');
    return { status: 'succeeded', processor_reference: `sbx_re_${digest.slice(0, 20)}` };
  }

  /** A sandbox payment is settled only by the sandbox helpers: there is nothing at a processor to stop. */
  async abandon(_payment: AbandonIntent): Promise<AbandonAnswer> {
    return 'cancelled';
  }

  /** Never final at a sandbox "processor": only the sandbox helpers settle a sandbox payment. */
  async lookUp(_processorReference: string): Promise<LookUpAnswer> {
    return { status: 'pending' };
  }
}

const LIVE_FEATURE_MESSAGES: Record<ProcessorFeature, string> = {
  charges: 'Live payments are not enabled for this currency yet',
  refunds: 'Live refunds are not enabled for this currency yet',
  checkout: 'Live hosted checkout is not enabled for this currency yet',
};

/**
 * Adapters by (mode, group). Sandbox callers can only ever reach sandbox adapters: the lookup is
 * keyed by the caller's mode and the sandbox table holds nothing else. A live adapter plugs in by
 * implementing ProcessorAdapter with mode 'live' and being passed in `live` (see docs/decisions.md).
 */
export class StaticProcessorRegistry implements ProcessorRegistry {
  private readonly sandbox: Record<ProcessorGroup, ProcessorAdapter>;
  private readonly live: Partial<Record<ProcessorGroup, ProcessorAdapter>>;

  constructor(
    options: ProcessorBreakerOptions & {
      cardPublishableKey: string;
      sandboxDelayMs?: number;
      live?: Partial<Record<ProcessorGroup, ProcessorAdapter>>;
    },
  ) {
    const guard = (adapter: ProcessorAdapter) => new GuardedProcessor(adapter, options);
    this.sandbox = {
      naira: guard(new SandboxProcessor('naira', options.cardPublishableKey, options.sandboxDelayMs)),
      regional: guard(new SandboxProcessor('regional', options.cardPublishableKey, options.sandboxDelayMs)),
      card: guard(new SandboxProcessor('card', options.cardPublishableKey, options.sandboxDelayMs)),
    };
    this.live = {};
    for (const [group, adapter] of Object.entries(options.live ?? {}) as [ProcessorGroup, ProcessorAdapter][]) {
      if (adapter.mode !== 'live') throw new Error(`live adapter for ${group} must have mode 'live'`);
      this.live[group] = guard(adapter);
    }
  }

  adapterFor(group: ProcessorGroup, mode: Mode, feature: ProcessorFeature = 'charges'): ProcessorAdapter {
    if (mode === 'sandbox') return this.sandbox[group];
    const adapter = this.live[group];
    if (!adapter)
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, {
        detail: `no live ${group} processor is configured`,
      });
    if (!adapter.features.includes(feature)) {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', LIVE_FEATURE_MESSAGES[feature], {
        detail: `the live ${adapter.id} does not offer ${feature} yet`,
      });
    }
    return adapter;
  }
}
