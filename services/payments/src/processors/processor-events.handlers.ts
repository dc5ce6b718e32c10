import { PlatformError } from '@ppay/kernel';
import type { UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { EventVerifier } from './processor-event';
import type { ProcessorEventInbox } from './processor-events';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

/**
 * Inbound processor events (forwarded by the gateway with their raw body): verified by the
 * processor's connector, stored once, answered at once; applied later by the inbox.
 */
export function processorEventHandlers(
  inbox: ProcessorEventInbox,
  verifiers: Readonly<Record<string, EventVerifier>>,
  count: (processor: string, type: string, outcome: string) => void,
  onApplyError: (err: unknown) => void,
): Partial<Handlers> {
  return {
    async ReceiveProcessorEvent(req) {
      const processor = req.processor;
      const verifier = Object.prototype.hasOwnProperty.call(verifiers, processor) ? verifiers[processor] : undefined;
      if (!verifier) {
        throw new PlatformError('GATEWAY_NOT_CONFIGURED', 'This processor is not configured', { param: 'processor' });
      }
      let verified;
      try {
        verified = verifier.verify(Buffer.from(req.payload), req.signature);
      } catch (err) {
        if (err instanceof PlatformError && err.code === 'PROCESSOR_SIGNATURE_INVALID') {
          count(processor, 'unverified', 'signature_invalid');
        }
        throw err;
      }
      if (verified.kind === 'ignored') {
        count(processor, verified.type, 'ignored');
        return { outcome: 'ignored' };
      }
      const outcome = await inbox.receive(verified.event);
      count(processor, verified.event.type, outcome);
      if (outcome === 'received') inbox.applySoon(onApplyError);
      return { outcome };
    },
  };
}
