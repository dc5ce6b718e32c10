/**
 * OpenTelemetry bootstrap. Must run before @grpc/grpc-js and node:http are loaded by the rest of
 * the process, so each component's entry point imports its `instrument.ts` first.
 *
 * Context flows gateway (HTTP server span) → gRPC client/server spans (instrumentation-grpc puts
 * `traceparent` in gRPC metadata) → NATS (kernel/nats injects `traceparent` into message headers).
 * Spans are exported over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT; without it the SDK is not started.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;

export function startTracing(serviceName: string): void {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // Tracing runs when there is somewhere to send spans (compose and Helm set the endpoint). Without
  // one nobody could read them, and the instrumentation alone costs a large share of gateway
  // throughput (docs/performance.md).
  if (sdk || !endpoint || process.env.OTEL_SDK_DISABLED === 'true') return;
  // Metrics go through prom-client and logs through pino; the SDK must not invent exporters of
  // its own (its default would post to localhost:4318 and stall shutdown on the retries).
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const spanProcessors: SpanProcessor[] = [
    new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }), {
      scheduledDelayMillis: Number(process.env.OTEL_BSP_SCHEDULE_DELAY ?? 1000),
    }),
  ];
  sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: `ppay-${serviceName}`,
      [ATTR_SERVICE_VERSION]: process.env.npm_package_version ?? '0.1.0',
    }),
    spanProcessors,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the useful spans.
        ignoreIncomingRequestHook: (req) => /^\/(metrics|healthz|readyz|health)/.test(req.url ?? ''),
      }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    ],
  });
  sdk.start();
}

export async function stopTracing(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  await current?.shutdown().catch(() => undefined);
}
