// Loaded first by main.ts so instrumentation is in place before grpc and http are required.
import { startTracing } from '@ppay/runtime/telemetry';

startTracing('gateway');
