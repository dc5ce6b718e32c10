import { createHash } from 'node:crypto';
import CircuitBreaker from 'opossum';
import { PlatformError, type Mode } from '@ppay/kernel';
import { GATEWAY_IDS, type GatewayGroup } from '../domain/routing';
import type { GatewayAdapter, GatewayAuthorization, GatewayIntent, GatewayRegistry } from '../domain/ports';

/**
 * Sandbox gateways: deterministic, in-process stand-ins for the three gateway groups. They hand
 * back the same kind of data as the real ones (the card route: client secret, publishable key and
 * connected account) but move no money. Outcomes are driven later by test cards or the sandbox
 * endpoints, never by these calls.
 */
class SandboxGateway implements GatewayAdapter {
  readonly mode: Mode = 'sandbox';

  constructor(
    readonly group: GatewayGroup,
    private readonly publishableKey: string,
  ) {}

  get id(): string {
    return GATEWAY_IDS[this.group];
  }

  async initialise(intent: GatewayIntent): Promise<GatewayAuthorization> {
    const digest = createHash('sha256').update(`${this.group}:${intent.charge_id}`).digest('hex');
    const reference = `sbx_${this.group}_${digest.slice(0, 20)}`;
    if (this.group !== 'card') return { gateway_reference: reference };
    return {
      gateway_reference: reference,
      client_secret: `${reference}_secret_${digest.slice(20, 44)}`,
      publishable_key: this.publishableKey,
      gateway_account_id: `acct_sbx_${intent.merchant_id}`,
    };
  }
}

export interface GatewayBreakerOptions {
  timeoutMs: number;
  resetTimeoutMs: number;
}

/** Every adapter call runs behind its own breaker with a timeout: a hung gateway fails fast. */
class GuardedGateway implements GatewayAdapter {
  private readonly breaker: CircuitBreaker<[GatewayIntent], GatewayAuthorization>;

  constructor(
    private readonly inner: GatewayAdapter,
    options: GatewayBreakerOptions,
  ) {
    this.breaker = new CircuitBreaker((intent: GatewayIntent) => inner.initialise(intent), {
      timeout: options.timeoutMs,
      resetTimeout: options.resetTimeoutMs,
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
    });
  }

  get id(): string {
    return this.inner.id;
  }

  get mode(): Mode {
    return this.inner.mode;
  }

  async initialise(intent: GatewayIntent): Promise<GatewayAuthorization> {
    try {
      return await this.breaker.fire(intent);
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: `${this.inner.id} did not answer; no payment was created, retry the request`,
        cause: err,
      });
    }
  }
}

/**
 * Adapters by (mode, group). Sandbox callers can only ever reach sandbox adapters: the lookup is
 * keyed by the caller's mode and the sandbox table holds nothing else. A live adapter plugs in by
 * implementing GatewayAdapter with mode 'live' and being passed in `live` (see docs/decisions.md).
 */
export class StaticGatewayRegistry implements GatewayRegistry {
  private readonly sandbox: Record<GatewayGroup, GatewayAdapter>;
  private readonly live: Partial<Record<GatewayGroup, GatewayAdapter>>;

  constructor(
    options: GatewayBreakerOptions & {
      cardPublishableKey: string;
      live?: Partial<Record<GatewayGroup, GatewayAdapter>>;
    },
  ) {
    const guard = (adapter: GatewayAdapter) => new GuardedGateway(adapter, options);
    this.sandbox = {
      naira: guard(new SandboxGateway('naira', options.cardPublishableKey)),
      regional: guard(new SandboxGateway('regional', options.cardPublishableKey)),
      card: guard(new SandboxGateway('card', options.cardPublishableKey)),
    };
    this.live = {};
    for (const [group, adapter] of Object.entries(options.live ?? {}) as [GatewayGroup, GatewayAdapter][]) {
      if (adapter.mode !== 'live') throw new Error(`live adapter for ${group} must have mode 'live'`);
      this.live[group] = guard(adapter);
    }
  }

  adapterFor(group: GatewayGroup, mode: Mode): GatewayAdapter {
    if (mode === 'sandbox') return this.sandbox[group];
    const adapter = this.live[group];
    if (!adapter)
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, {
        detail: `no live ${group} gateway is configured`,
      });
    return adapter;
  }
}
