import { type Mode } from '@ppay/kernel';
import { ProcessorGuard, type ProcessorBreakerOptions } from '@ppay/runtime';
import type { DisputeRecord } from '../disputes/dispute';
import type { DisputeProcessor, EvidenceReceipt } from '../disputes/ports';
import type { PayoutTransferProcessor, TransferAnswer, TransferRequest } from '../payouts/payout-transfer';
import type { CardResult, ProcessorSavedCard, SavedCardPayment } from './cards';
import type {
  AbandonAnswer,
  AbandonIntent,
  CheckoutAuthorization,
  CheckoutIntent,
  CheckoutPayment,
  LookUpAnswer,
  PaymentIntent,
  ProcessorAdapter,
  ProcessorAuthorization,
  ProcessorFeature,
  RefundAnswer,
  RefundIntent,
  SavedCardCharger,
} from './ports';

/** A processor adapter whose every call runs behind its guard. */
export class GuardedProcessor implements ProcessorAdapter {
  private readonly guard: ProcessorGuard;

  constructor(
    private readonly inner: ProcessorAdapter,
    options: ProcessorBreakerOptions,
  ) {
    this.guard = new ProcessorGuard(inner.id, options);
  }

  get id(): string {
    return this.inner.id;
  }

  get mode(): Mode {
    return this.inner.mode;
  }

  get features(): readonly ProcessorFeature[] {
    return this.inner.features;
  }

  initialise(intent: PaymentIntent): Promise<ProcessorAuthorization> {
    return this.guard.call('initialise', () => this.inner.initialise(intent));
  }

  initialiseCheckout(intent: CheckoutIntent): Promise<CheckoutAuthorization> {
    return this.guard.call('checkout', () => this.inner.initialiseCheckout(intent));
  }

  refund(request: RefundIntent): Promise<RefundAnswer> {
    return this.guard.call('refund', () => this.inner.refund(request));
  }

  abandon(payment: AbandonIntent): Promise<AbandonAnswer> {
    return this.guard.call('abandon', () => this.inner.abandon(payment));
  }

  lookUp(processorReference: string): Promise<LookUpAnswer> {
    return this.guard.call('look_up', () => this.inner.lookUp(processorReference));
  }

  checkoutPayment(processorReference: string): Promise<CheckoutPayment> {
    return this.guard.call('checkout_payment', () => this.inner.checkoutPayment(processorReference));
  }
}

/**
 * A live processor's off-session charges behind their guard. A declined card is an answer and never
 * trips it; a timeout is UPSTREAM_TIMEOUT (outcome unknown, asked again with `asked_before`).
 */
export class GuardedCharger implements SavedCardCharger {
  private readonly guard: ProcessorGuard;

  constructor(
    private readonly inner: SavedCardCharger,
    options: ProcessorBreakerOptions,
  ) {
    this.guard = new ProcessorGuard(inner.processor, options);
  }

  get processor(): string {
    return this.inner.processor;
  }

  chargeSaved(payment: SavedCardPayment, card: ProcessorSavedCard): Promise<CardResult> {
    return this.guard.call('off_session', () => this.inner.chargeSaved(payment, card));
  }
}

/** A live processor's dispute calls (evidence, acceptance) behind their guard. */
export class GuardedDisputeProcessor implements DisputeProcessor {
  private readonly guard: ProcessorGuard;

  constructor(
    private readonly inner: DisputeProcessor,
    processorId: string,
    options: ProcessorBreakerOptions,
  ) {
    this.guard = new ProcessorGuard(processorId, options);
  }

  submitEvidence(dispute: DisputeRecord): Promise<EvidenceReceipt> {
    return this.guard.call('dispute_evidence', () => this.inner.submitEvidence(dispute));
  }

  accept(dispute: DisputeRecord): Promise<void> {
    return this.guard.call('dispute_accept', () => this.inner.accept(dispute));
  }
}

/** The transfers behind the breaker and deadline every processor call runs behind (S44). */
export class GuardedTransferProcessor implements PayoutTransferProcessor {
  private readonly guard: ProcessorGuard;

  constructor(
    private readonly inner: PayoutTransferProcessor,
    options: ProcessorBreakerOptions,
  ) {
    this.guard = new ProcessorGuard('card_gateway', options);
  }

  create(request: TransferRequest): Promise<TransferAnswer> {
    return this.guard.call('transfers', () => this.inner.create(request));
  }
}
