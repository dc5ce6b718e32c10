import * as grpc from '@grpc/grpc-js';
import { loadPlatformProto } from '@ppay/proto';
import { callerFromMetadata, PlatformMetrics } from '@ppay/runtime';
import { GrpcPayments } from './payments-client.adapter';

/** The charges an in-process payments service lists, by reference; `down` answers UNAVAILABLE. */
const listed = new Map<string, Record<string, unknown>>();
const asked: { request: Record<string, unknown>; caller: ReturnType<typeof callerFromMetadata> }[] = [];
let down = false;

const KEY = 'sub:sub_1:2026-02-28T10:00:00.000Z:1';
const charge = (over: Record<string, unknown>) => ({
  charge_id: 'ch_1',
  status: 'succeeded',
  reference: KEY,
  amount: { amount: 500_000, currency: 'NGN' },
  ...over,
});

describe('GrpcPayments.findCharge: ListCharges by reference, the key of the off-session charge', () => {
  let server: grpc.Server;
  let payments: GrpcPayments;

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(loadPlatformProto().ppay.payments.v1.PaymentsService.service, {
      ListCharges: (call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        asked.push({ request: call.request, caller: callerFromMetadata(call.metadata, () => '') });
        if (down) return cb({ code: grpc.status.UNAVAILABLE, details: 'payments down' });
        const found = listed.get(call.request.reference as string);
        cb(null, { charges: found ? [found] : [], has_more: false });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    payments = new GrpcPayments(`127.0.0.1:${port}`, new PlatformMetrics('payments-client-test'), 2_000);
  });

  afterAll(() => {
    payments.close();
    server.forceShutdown();
  });

  beforeEach(() => {
    listed.clear();
    asked.length = 0;
    down = false;
  });

  it('asks for one charge by reference, as the merchant, and answers it', async () => {
    listed.set(KEY, charge({}));
    await expect(payments.findCharge(7, 'sandbox', KEY)).resolves.toEqual({
      charge_id: 'ch_1',
      status: 'succeeded',
      decline_code: null,
      amount: { amount: 500_000, currency: 'NGN' },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.request).toMatchObject({ reference: KEY, limit: 1, status: '' });
    expect(asked[0]!.caller).toMatchObject({ merchantId: 7, mode: 'sandbox', auth: 'internal' });
  });

  it('a declined charge carries its failure reason as the decline code', async () => {
    listed.set(KEY, charge({ status: 'failed', failure_reason: 'insufficient_funds' }));
    await expect(payments.findCharge(7, 'live', KEY)).resolves.toMatchObject({
      status: 'failed',
      decline_code: 'insufficient_funds',
    });
  });

  it.each(['initializing', 'pending'])('a charge %s at payments is in flight: pending', async (status) => {
    listed.set(KEY, charge({ status }));
    await expect(payments.findCharge(7, 'sandbox', KEY)).resolves.toMatchObject({
      status: 'pending',
      decline_code: null,
    });
  });

  it('no charge under the reference: null', async () => {
    listed.set('sub:sub_1:2026-02-28T10:00:00.000Z:2', charge({}));
    await expect(payments.findCharge(7, 'sandbox', KEY)).resolves.toBeNull();
  });

  it('payments not answering is thrown, never taken for "not found"', async () => {
    down = true;
    await expect(payments.findCharge(7, 'sandbox', KEY)).rejects.toThrow();
  });
});
