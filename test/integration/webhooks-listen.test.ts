import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { verifyWebhook, WebhookVerificationError } from '@ppay/webhooks-receiver';
import { NGN_CHARGE } from '../support/fixtures';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

const MERCHANT_CLI = path.resolve(__dirname, '..', '..', 'packages', 'devstack', 'dist', 'merchant-cli.js');

/** Issue 10, "listen CLI": the built CLI against a running platform and a loopback receiver. */
describe('npm run merchant -- listen', () => {
  let t: TestPlatform;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const running: ChildProcess[] = [];

  function startListen(args: string[]) {
    const child = spawn(process.execPath, [MERCHANT_CLI, 'listen', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    const output = { stdout: '', stderr: '' };
    child.stdout!.on('data', (c: Buffer) => (output.stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (output.stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output, exited };
  }

  beforeAll(async () => {
    rx = await startReceiver();
    t = await startTestPlatform('webhooks-listen');
  });
  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    await t?.stop();
    await rx?.close();
  });

  it('forwards payment.succeeded signed with the printed session secret and prints a line with the status', async () => {
    const m = await t.merchant();
    const cli = startListen([
      '--api-key',
      m.api_key,
      '--forward-to',
      rx.url('/listen'),
      '--gateway',
      t.url,
      '--events',
      'payment.succeeded,payment.failed',
    ]);
    expect(await eventually(async () => /whsec_[0-9A-Za-z]{32}/.test(cli.output.stdout), 15_000)).toBe(true);
    const secret = /(whsec_[0-9A-Za-z]{32})/.exec(cli.output.stdout)![1]!;
    expect(secret).not.toBe(m.webhook_secret);

    const created = await http(t.url, 'POST', '/api/v1/partner/payments/charge', {
      headers: { 'x-api-key': m.api_key },
      body: NGN_CHARGE,
    });
    expect(created.status).toBe(200);
    const chargeId = created.body.data.charge_id as string;
    const paid = await http(t.url, 'POST', `/api/v1/partner/sandbox/charges/${chargeId}/succeed`, {
      headers: { 'x-api-key': m.api_key },
    });
    expect(paid.status).toBe(200);

    expect(await eventually(async () => rx.on('/listen').length >= 1, 20_000)).toBe(true);
    const got = rx.on('/listen')[0]!;
    const event = verifyWebhook(got.raw, got.headers as Record<string, string>, [secret]);
    expect(event).toMatchObject({
      event_type: 'payment.succeeded',
      api_version: '2026-03-27',
      business_id: String(m.merchant_id),
      is_live: false,
      data: { charge_id: chargeId, status: 'succeeded' },
    });
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'payment.succeeded',
      'x-service-event-id': event.event_id,
      'x-service-api-version': '2026-03-27',
      'x-service-signature-v2': expect.stringMatching(/^t=\d{10},v1=[0-9a-f]{64}$/),
    });
    // Signed with the session secret only: the key's real secret does not verify it.
    expect(() => verifyWebhook(got.raw, got.headers as Record<string, string>, [m.webhook_secret])).toThrow(
      WebhookVerificationError,
    );
    // The same event the event log holds (same id and data).
    const logged = await http(t.url, 'GET', `/api/v1/partner/events/${event.event_id}`, {
      headers: { 'x-api-key': m.api_key },
    });
    expect(logged.body.data).toMatchObject({ event_type: 'payment.succeeded', data: { charge_id: chargeId } });

    const line = new RegExp(`payment\\.succeeded\\s+${event.event_id}\\s+\\[200\\]\\s+\\d+ ms`);
    expect(await eventually(async () => line.test(cli.output.stdout), 5_000)).toBe(true);
    // --events filtered out the wallet.credited of the same charge.
    expect(rx.on('/listen').map((r) => r.body.event_type)).toEqual(['payment.succeeded']);

    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  }, 60_000);

  it('stops with a clear message when the gateway refuses the key', async () => {
    const cli = startListen([
      '--api-key',
      `pk_sandbox_${'x'.repeat(32)}`,
      '--forward-to',
      rx.url('/nope'),
      '--gateway',
      t.url,
    ]);
    expect(await cli.exited).toBe(1);
    expect(cli.output.stderr).toMatch(/HTTP 401 INVALID_API_KEY/);
    expect(cli.output.stdout).not.toMatch(/whsec_/);
  }, 30_000);
});
