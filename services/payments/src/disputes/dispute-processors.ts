import type { Mode } from '@ppay/kernel';
import type { DisputeProcessor, DisputeProcessors } from './ports';

/**
 * The dispute processors by mode: live disputes go to the live connector's processor when one is
 * configured (Stripe), everything else to `fallback` (the sandbox's, which refuses live ones), so
 * sandbox disputes behave exactly as without a live connector.
 */
export class ModeDisputeProcessors implements DisputeProcessors {
  constructor(
    private readonly fallback: DisputeProcessors,
    private readonly live: DisputeProcessor | null,
  ) {}

  forMode(mode: Mode): DisputeProcessor {
    return mode === 'live' && this.live ? this.live : this.fallback.forMode(mode);
  }
}
