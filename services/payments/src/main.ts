import './instrument';
import { ensureIndexes, MerchantTombstones, OutboxRelay, runService } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { ChargeService } from './charges/charges';
import { chargeHandlers } from './charges/charges.handlers';
import { chargeModel, MongoChargeRepository } from './charges/charge.repo';
import { chargeListKeysJob } from './charges/charge-lists.repo';
import { MongoLiveChargeLookups } from './charges/live-charge-lookups.repo';
import { ChargeQueries } from './charges/charge-queries';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule } from './charges/fees';
import { OutcomeService } from './charges/outcomes';
import { MongoSessionRepository, sessionModel } from './checkout/session.repo';
import { GoodsCheckout } from './checkout/goods-checkout';
import { SessionService } from './checkout/sessions';
import { CheckoutEventApplier } from './checkout/checkout-events';
import { ProcessorCheckout } from './checkout/processor-checkout';
import { LiveGoodsCheckout } from './checkout/live-goods';
import { sessionHandlers } from './checkout/sessions.handlers';
import { paymentsConfig } from './config';
import { DisputeCloser } from './disputes/dispute-closing';
import { DEFAULT_DISPUTE_FEES, type DisputeFeeTable } from './disputes/dispute-funds';
import { disputeLedger } from './disputes/dispute-ledger';
import { DISPUTE_REINSTATEMENTS, DISPUTE_WITHDRAWALS } from './disputes/dispute-ledger.consumer';
import { DisputeEventApplier } from './disputes/dispute-events';
import { DisputeOpener } from './disputes/dispute-opening';
import { ModeDisputeProcessors } from './disputes/dispute-processors';
import { disputeModel, MongoDisputeRepository } from './disputes/dispute.repo';
import { DisputeService } from './disputes/disputes';
import { disputeChargeConsumer, sandboxCardDisputeConsumer } from './disputes/disputes.consumer';
import { disputeHandlers } from './disputes/disputes.handlers';
import { disputeMetrics } from './disputes/disputes.metrics';
import { SandboxCardDisputes } from './disputes/sandbox-card-disputes';
import { SandboxDisputeProcessors } from './disputes/sandbox-disputes.adapter';
import { MERCHANT_DATA } from './merchant-data.repo';
import { merchantProfileModel, ProjectedMerchantDirectory } from './merchants/merchant-directory.repo';
import { merchantProjectionConsumers } from './merchants/merchant-projection.consumer';
import { OffSessionChargeService } from './payment-methods/off-session-charges';
import { MongoPaymentMethodRepository, paymentMethodModel } from './payment-methods/payment-method.repo';
import { PaymentMethodService } from './payment-methods/payment-methods';
import { paymentMethodHandlers } from './payment-methods/payment-methods.handlers';
import { MongoPayoutRepository, payoutModel } from './payouts/payout.repo';
import { PayoutService } from './payouts/payouts';
import { payoutHandlers } from './payouts/payouts.handlers';
import { payoutTransferMetrics } from './payouts/payout-transfers.metrics';
import { PayoutTransferEventApplier } from './payouts/transfer-events';
import { MongoOrderRepository, orderModel } from './orders/order.repo';
import { OrderService } from './orders/orders';
import { orderHandlers } from './orders/orders.handlers';
import { orderMetrics } from './orders/orders.metrics';
import { paidGoodsConsumer } from './checkout/goods.consumer';
import {
  GrpcFxConverter,
  GrpcConnectedAccountStatuses,
  GrpcPayoutDestinations,
  GrpcProductLookup,
  GrpcSplitResolver,
  GrpcStock,
} from './platform-clients.adapter';
import { SandboxCardProcessor, sandboxDisputeReason } from './processors/sandbox-cards.adapter';
import { RoutedCardProcessor } from './processors/card-routing';
import {
  GuardedCharger,
  GuardedDisputeProcessor,
  GuardedTransferProcessor,
} from './processors/processor-guard.adapter';
import { StaticProcessorRegistry } from './processors/sandbox-processors.adapter';
import { MongoProcessorEventRepository, processorEventModel } from './processors/processor-event.repo';
import { eventSubject } from './processors/processor-event';
import { ProcessorEventInbox } from './processors/processor-events';
import { ConnectedAccountEventApplier } from './processors/connected-account-events';
import { PaymentEventApplier } from './processors/payment-events';
import { LiveChargeReconciler } from './processors/live-charge-reconciler';
import { liveReconcilerMetrics } from './processors/live-charge-reconciler.metrics';
import { processorEventHandlers } from './processors/processor-events.handlers';
import { processorEventMetrics } from './processors/processor-events.metrics';
import { stripeConnector } from './processors/stripe/stripe-connector.adapter';
import { RefundLedger } from './refunds/refund-ledger';
import { REFUND_DEBITS } from './refunds/refund-ledger.consumer';
import { RefundEventApplier } from './refunds/refund-events';
import { RefundService } from './refunds/refunds';
import { refundHandlers } from './refunds/refunds.handlers';
import { refundMetrics } from './refunds/refunds.metrics';
import { ledgerModel, MongoLedgerEntries } from './wallets/ledger-entry.repo';
import { LedgerReconciler } from './wallets/ledger-reconciler';
import { PAYMENT_CREDITS, walletWriterConsumer } from './wallets/ledger.consumer';
import { countLedgerWrites, ledgerMetrics } from './wallets/ledger.metrics';
import { WalletCredits } from './wallets/wallet-credits';
import { WalletLedger } from './wallets/wallet-ledger';
import { walletMetrics } from './wallets/wallet.metrics';
import { MongoWalletStore, walletModel } from './wallets/wallet.repo';
import { WalletReconciler } from './wallets/wallet-reconciler';
import { walletHandlers } from './wallets/wallets.handlers';

void runService<types.payments.PaymentsServiceHandlers, (typeof paymentsConfig)['properties']>({
  name: 'payments',
  extraConfig: paymentsConfig,
  async setup({ config, mongo, nats, log, metrics }) {
    const ledgerCounters = ledgerMetrics(metrics.registry);
    const charges = chargeModel(mongo);
    const profiles = merchantProfileModel(mongo);
    const entries = ledgerModel(mongo);
    const sessionDocs = sessionModel(mongo);
    const methodDocs = paymentMethodModel(mongo);
    const walletDocs = walletModel(mongo);
    const payoutDocs = payoutModel(mongo);
    const disputeDocs = disputeModel(mongo);
    const orderDocs = orderModel(mongo);
    const processorEventDocs = processorEventModel(mongo);
    await ensureIndexes([
      processorEventDocs,
      charges,
      profiles,
      entries,
      sessionDocs,
      methodDocs,
      walletDocs,
      payoutDocs,
      disputeDocs,
      orderDocs,
    ]);
    const relay = new OutboxRelay(charges, nats, log, metrics);
    const sessionRelay = new OutboxRelay(sessionDocs, nats, log, metrics);
    const chargeRepo = new MongoChargeRepository(charges, (id) => relay.relaySoon(id));
    const sessionRepo = new MongoSessionRepository(sessionDocs, (id) => sessionRelay.relaySoon(id));
    const ledgerRelay = new OutboxRelay(entries, nats, log, metrics);
    const wallets = new MongoWalletStore(walletDocs);
    const ledger = new WalletLedger(new MongoLedgerEntries(entries, (id) => ledgerRelay.relaySoon(id)), wallets);
    const payoutRelay = new OutboxRelay(payoutDocs, nats, log, metrics);
    const walletCounters = walletMetrics(metrics.registry);
    const walletReconciler = new WalletReconciler(new MongoLedgerEntries(entries), wallets);
    const directory = new ProjectedMerchantDirectory(profiles, config.MERCHANT_EVENT_WAIT_MS);
    const fx = new GrpcFxConverter(config.FX_PRICING_GRPC_ADDR, metrics);
    const splits = new GrpcSplitResolver(config.MARKETPLACE_GRPC_ADDR, metrics);
    const feeSchedule = config.FEE_SCHEDULE_JSON
      ? (JSON.parse(config.FEE_SCHEDULE_JSON) as FeeSchedule)
      : DEFAULT_FEE_SCHEDULE;
    // Live card payments on Stripe when configured: its gateway and the verifier of its events together.
    const stripe = stripeConnector(config, metrics.registry);
    // Every processor call, live or sandbox, runs behind a breaker with this timeout (processor-guard.adapter.ts).
    const breakers = { timeoutMs: config.PROCESSOR_TIMEOUT_MS, resetTimeoutMs: 30_000 };
    const payoutDestinations = new GrpcPayoutDestinations(config.KYC_GRPC_ADDR, metrics);
    const payoutRepo = new MongoPayoutRepository(payoutDocs, (id) => payoutRelay.relaySoon(id));
    // Live connected-account payouts are Stripe Transfers (docs/decisions.md C23–C30).
    const payouts = new PayoutService(
      {
        payouts: payoutRepo,
        wallets,
        ledger,
        destinations: payoutDestinations,
        transfers: stripe ? new GuardedTransferProcessor(stripe.transfers, breakers) : null,
      },
      undefined,
      {
        // Not while a settlement's own call may still be running (its deadline and the library's retry).
        transferStaleAfterMs: Math.max(30_000, config.PROCESSOR_TIMEOUT_MS * 3),
        onTransfer: payoutTransferMetrics(metrics.registry),
      },
    );
    const processors = new StaticProcessorRegistry({
      ...breakers,
      cardPublishableKey: config.CARD_PUBLISHABLE_KEY,
      sandboxDelayMs: config.SANDBOX_INIT_DELAY_MS,
      live: stripe ? { card: stripe.card } : {},
    });
    const service = new ChargeService(
      { merchants: directory, fx, splits, processors, charges: chargeRepo },
      {
        feeSchedule,
        tolerance: config.AMOUNT_TOLERANCE,
        // A processor's late answer is still awaited this long before the charge counts as abandoned.
        staleAfterMs: config.PROCESSOR_TIMEOUT_MS * 3,
      },
      undefined,
      undefined,
      (err, chargeId) => log.warn({ err, charge_id: chargeId }, 'recording a late processor answer failed'),
    );
    const products = new GrpcProductLookup(config.FX_PRICING_GRPC_ADDR, metrics);
    // Saved cards are charged by the processor that holds them: sandbox cards here, Stripe's at Stripe (S36).
    const cards = new RoutedCardProcessor(
      new SandboxCardProcessor({ processingDelayMs: config.SANDBOX_PROCESSING_DELAY_MS }),
      stripe ? [new GuardedCharger(stripe.offSession, breakers)] : [],
    );
    const methods = new MongoPaymentMethodRepository(methodDocs);
    const paymentMethods = new PaymentMethodService({ methods, cards });
    const offSession = new OffSessionChargeService(
      { methods, charges: chargeRepo, merchants: directory, cards, processors },
      { feeSchedule, staleAfterMs: config.PROCESSOR_TIMEOUT_MS * 3 },
      undefined,
      undefined,
      (err, chargeId) => log.warn({ err, charge_id: chargeId }, 'recording a late off-session charge answer failed'),
    );
    const outcomes = new OutcomeService(chargeRepo);
    const credits = new WalletCredits(ledger, splits);
    const reconciler = new LedgerReconciler(
      { charges: chargeRepo, sessions: sessionRepo, ledger, credits },
      { graceMs: config.LEDGER_RECONCILE_GRACE_MS },
    );
    const refundCounter = refundMetrics(metrics.registry);
    const refunds = new RefundService(
      { charges: chargeRepo, processors },
      {
        staleAfterMs: Math.max(60_000, config.PROCESSOR_TIMEOUT_MS * 3),
        onSettled: (r) => refundCounter.inc({ status: r.status, currency: r.amount.currency }),
      },
    );
    const refundLedger = new RefundLedger({ charges: chargeRepo, ledger, credits });
    const tombstones = new MerchantTombstones(mongo);
    const disputeRelay = new OutboxRelay(disputeDocs, nats, log, metrics);
    const disputeRepo = new MongoDisputeRepository(disputeDocs, (id) => disputeRelay.relaySoon(id));
    const disputeCounters = disputeMetrics(metrics.registry);
    const disputeFees = config.DISPUTE_FEES_JSON
      ? (JSON.parse(config.DISPUTE_FEES_JSON) as DisputeFeeTable)
      : DEFAULT_DISPUTE_FEES;
    const opener = new DisputeOpener(
      { charges: chargeRepo, disputes: disputeRepo, credits },
      {
        fees: disputeFees,
        responseWindowMs: config.DISPUTE_RESPONSE_DAYS * 24 * 60 * 60 * 1000,
        onOpened: (d) => disputeCounters.opened(d),
      },
    );
    // Live disputes' evidence and acceptance go to Stripe when it is configured; sandbox ones never leave.
    const disputeProcessors = new ModeDisputeProcessors(
      new SandboxDisputeProcessors(config.SANDBOX_DISPUTE_DECISION_MS),
      stripe ? new GuardedDisputeProcessor(stripe.disputes, 'stripe', breakers) : null,
    );
    const closer = new DisputeCloser(
      { charges: chargeRepo, disputes: disputeRepo, processors: disputeProcessors },
      { onClosed: (d, by) => disputeCounters.closed(d, by) },
    );
    const disputes = new DisputeService({ disputes: disputeRepo, processors: disputeProcessors });
    const cardDisputes = new SandboxCardDisputes({
      sessions: sessionRepo,
      charges: chargeRepo,
      opener,
      disputeReasonOf: sandboxDisputeReason,
    });
    const disputeMoves = disputeLedger(ledger);
    const stock = new GrpcStock(config.FX_PRICING_GRPC_ADDR, metrics);
    const orderRelay = new OutboxRelay(orderDocs, nats, log, metrics);
    const orderCounters = orderMetrics(metrics.registry);
    const orders = new OrderService(
      { orders: new MongoOrderRepository(orderDocs, (id) => orderRelay.relaySoon(id)), refunds, stock },
      { onEvent: (o, event) => orderCounters.event(o, event) },
    );
    // A payment attempt's claim on its session is stale after this (a crash in the middle of one).
    const attemptStaleMs = Math.max(30_000, config.PROCESSOR_TIMEOUT_MS * 3);
    const goods = new GoodsCheckout(
      { fx, stock, orders, credits, charges: chargeRepo, sessions: sessionRepo },
      (outcome) => orderCounters.holds.inc({ outcome }),
      { attemptStaleMs, now: () => new Date() },
    );
    const processorCheckout = new ProcessorCheckout({
      sessions: sessionRepo,
      charges: chargeRepo,
      processors,
      paymentMethods,
    });
    const liveGoods = new LiveGoodsCheckout(
      { sessions: sessionRepo, goods, stock, checkout: processorCheckout },
      { attemptStaleMs },
    );
    const sweepOrders = async () => {
      await orders.finishUnfinished();
      const days = config.ORDER_FULFILMENT_ALERT_DAYS * 24 * 3_600_000;
      orderCounters.overdue.set(await orders.countUnfulfilledSince(new Date(Date.now() - days)));
    };
    const sessions = new SessionService(
      {
        merchants: directory,
        processors,
        products,
        sessions: sessionRepo,
        cards,
        paymentMethods,
        charges: chargeRepo,
        goods,
        splits,
        liveGoods,
      },
      {
        feeSchedule,
        ttlMs: config.SESSION_TTL_MS,
        maxAttempts: config.SESSION_MAX_ATTEMPTS,
        attemptStaleMs,
      },
    );

    const sweepDisputes = async () => {
      await opener.resumeStale();
      await closer.expireDue();
      await closer.decideDue();
      disputeCounters.unanswered.set(await disputeRepo.countUnansweredDueBefore(new Date(Date.now() + 24 * 3_600_000)));
    };
    const eventCounters = processorEventMetrics(
      metrics.registry,
      stripe ? [...stripe.eventTypes, 'reconcile.succeeded', 'reconcile.failed'] : [],
    );
    const paymentEvents = new PaymentEventApplier({ charges: chargeRepo, outcomes, processors }, (e, err) =>
      log.warn(
        { err, event_id: e.event_id, charge_id: e.charge_id },
        'cancelling a failed payment at its processor failed; the charge stays pending and the sweep retries',
      ),
    );
    const checkoutEvents = new CheckoutEventApplier(
      { sessions: sessionRepo, checkout: processorCheckout, goods: liveGoods },
      (e, err) =>
        log.warn(
          { err, event_id: e.event_id, session_id: e.session_id },
          'completing a live session failed (its processor could not be read); the event is retried',
        ),
    );
    const refundEvents = new RefundEventApplier({ charges: chargeRepo, refunds });
    const disputeEvents = new DisputeEventApplier({ charges: chargeRepo, disputes: disputeRepo, opener, closer });
    const accountStatuses = new GrpcConnectedAccountStatuses(config.KYC_GRPC_ADDR, metrics);
    const accountEvents = new ConnectedAccountEventApplier({ statuses: accountStatuses }, (e, err) =>
      log.warn(
        { err, event_id: e.event_id, account_reference: e.account_reference },
        'kyc could not take a connected account event; it is retried',
      ),
    );
    const transferEvents = new PayoutTransferEventApplier({ payouts: payoutRepo, transfers: payouts.transfers });
    const inbox = new ProcessorEventInbox(
      {
        events: new MongoProcessorEventRepository(processorEventDocs),
        appliers: {
          payment: paymentEvents,
          refund: refundEvents,
          dispute: disputeEvents,
          checkout: checkoutEvents,
          connected_account: accountEvents,
          payout_transfer: transferEvents,
        },
      },
      {
        unmatchedAfterMs: 10 * 60_000,
        retryMs: 5_000,
        onFinished: ({ event }, status, note) => {
          eventCounters.count(event.processor, event.type, status);
          if (status === 'mismatch' || status === 'stale' || status === 'unmatched')
            log.error(
              { event_id: event.event_id, ...eventSubject(event), status, note },
              'processor event not applied',
            );
        },
      },
    );
    // Live charges whose processor event was missed: looked up and applied through the inbox (S20).
    const liveReconciler = new LiveChargeReconciler(
      { lookups: new MongoLiveChargeLookups(charges), processors, inbox },
      {
        afterMs: config.LIVE_CHARGE_RECONCILE_AFTER_MS,
        maxAgeMs: config.LIVE_CHARGE_RECONCILE_MAX_AGE_MS,
        batch: config.LIVE_CHARGE_RECONCILE_BATCH,
        processor: 'stripe',
      },
      (charge, err) =>
        log.warn({ err, charge_id: charge.charge_id }, 'looking a live payment up at its processor failed'),
    );
    const liveReconciled = liveReconcilerMetrics(metrics.registry);
    const applyError = (err: unknown) => log.warn({ err }, 'applying processor events failed; the sweep retries');
    const reconcile = () =>
      reconciler.run((repair) => {
        countLedgerWrites(ledgerCounters, { inserted: repair.inserted, duplicates: 0 }, 'repair');
        ledgerCounters.repairs.inc({ source: repair.source });
        log.warn({ charge_id: repair.charge_id, source: repair.source }, 'ledger credits repaired by the reconciler');
      });
    return {
      handlers: {
        ...chargeHandlers(service, outcomes, new ChargeQueries(chargeRepo)),
        ...processorEventHandlers(inbox, stripe ? { stripe: stripe.verifier } : {}, eventCounters.count, applyError),
        ...refundHandlers(refunds),
        ...sessionHandlers(sessions),
        ...paymentMethodHandlers(paymentMethods, offSession),
        ...walletHandlers(ledger),
        ...payoutHandlers(payouts),
        ...disputeHandlers(disputes, opener, closer),
        ...orderHandlers(orders),
      },
      consumers: [
        ...merchantProjectionConsumers(directory, tombstones),
        walletWriterConsumer(PAYMENT_CREDITS, credits, ledgerCounters, tombstones),
        walletWriterConsumer(REFUND_DEBITS, refundLedger, ledgerCounters, tombstones),
        walletWriterConsumer(DISPUTE_WITHDRAWALS, disputeMoves.withdrawals, ledgerCounters, tombstones),
        walletWriterConsumer(DISPUTE_REINSTATEMENTS, disputeMoves.reinstatements, ledgerCounters, tombstones),
        disputeChargeConsumer(closer),
        sandboxCardDisputeConsumer(cardDisputes),
        paidGoodsConsumer(goods),
      ],
      merchantData: { targets: MERCHANT_DATA, tombstones },
      relays: [relay, sessionRelay, ledgerRelay, payoutRelay, disputeRelay, orderRelay],
      jobs: [
        // Spec 3.1: sessions expire whether or not anyone polls them.
        { name: 'session expiry', intervalMs: config.SESSION_SWEEP_INTERVAL_MS, run: () => sessions.sweepExpired() },
        { name: 'abandoned charges', intervalMs: config.CHARGE_SWEEP_INTERVAL_MS, run: () => service.abandonStale() },
        // Processor events stored but not applied yet (a crash, a charge not initialised yet).
        { name: 'processor events', intervalMs: config.CHARGE_SWEEP_INTERVAL_MS, run: () => inbox.applyDue() },
        // Live charges still pending long after they were set up: their processor asked (a missed event).
        {
          name: 'live charge reconciliation',
          intervalMs: config.LIVE_CHARGE_RECONCILE_INTERVAL_MS,
          run: async () => liveReconciled(await liveReconciler.run()),
        },
        // Charges stored before GET /payments/charges get their list key; the job stops once all have one.
        { name: 'charge list keys', intervalMs: 60_000, run: chargeListKeysJob(charges) },
        { name: 'ledger reconciliation', intervalMs: config.LEDGER_RECONCILE_INTERVAL_MS, run: reconcile },
        // Refunds left pending by a crash or a processor timeout: asked again and settled.
        { name: 'pending refunds', intervalMs: config.CHARGE_SWEEP_INTERVAL_MS, run: () => refunds.resumeStale() },
        // Entries a crash left unapplied to their wallet, and payout wallet steps begun but not confirmed.
        { name: 'wallet sweep', intervalMs: config.WALLET_SWEEP_INTERVAL_MS, run: () => ledger.applyPending() },
        { name: 'payout sweep', intervalMs: config.WALLET_SWEEP_INTERVAL_MS, run: () => payouts.finishUnfinished() },
        // Disputes opening after a crash, unanswered past their due date (lost), and scheduled outcomes.
        { name: 'dispute sweep', intervalMs: config.DISPUTE_SWEEP_INTERVAL_MS, run: sweepDisputes },
        // Order cancels whose refund, and stock returns that a crash or an outage, left unfinished.
        { name: 'order sweep', intervalMs: config.CHARGE_SWEEP_INTERVAL_MS, run: sweepOrders },
        // Stock holds of paid sessions kept, of sessions that can no longer pay given back (and of live
        // sessions whose processor never said they expired, after the grace period).
        {
          name: 'stock sweep',
          intervalMs: config.SESSION_SWEEP_INTERVAL_MS,
          run: async () => (await liveGoods.releaseUnheard()) + (await goods.settleStock()),
        },
        {
          name: 'wallet reconciliation',
          intervalMs: config.WALLET_RECONCILE_INTERVAL_MS,
          run: async () => {
            const report = await walletReconciler.run();
            walletCounters.drift.set(report.drifting.length);
            walletCounters.checked.inc(report.checked);
            for (const d of report.drifting) log.error({ wallet: d }, 'wallet totals disagree with its ledger entries');
          },
        },
      ],
      onShutdown: async () => {
        fx.close();
        splits.close();
        payoutDestinations.close();
        accountStatuses.close();
        products.close();
        stock.close();
      },
    };
  },
});
