import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Counter, Histogram } from 'prom-client';
import { METADATA_KEY_MAX_LENGTH, newRequestId, PlatformError, type CallerInfo } from '@ppay/kernel';
import { adminTokenAuth, apiKeyAuth, sandboxKeysOnly, userTokenAuth } from './auth/hooks';
import { operatorDenial } from './auth/operator-access';
import { trustProxyOption } from './config';
import { ADMIN_PREFIX, DASHBOARD_PREFIX, PARTNER_PREFIX, type GatewayDeps } from './deps';
import { toHttpError } from './http/errors';
import { presentMoney, responseSchemaFor } from './http/present-money';
import { registerIdempotency } from './http/idempotency';
import { AllowedMethods, isKnownMethod } from './http/methods';
import { registerRateLimits } from './http/rate-limit';
import { describeValidationError, validatorCompiler } from './http/validation';
import { registerAccountRoutes } from './routes/account';
import { registerAccountSettingsRoutes } from './routes/account-settings';
import { registerAdminRoutes } from './routes/admin';
import { registerApiKeyRoutes } from './routes/api-keys';
import { registerCheckoutRoutes } from './routes/checkout';
import { registerDashboardRoutes } from './routes/dashboard';
import { registerDisputeRoutes } from './routes/disputes';
import { registerKycRoutes } from './routes/kyc';
import { registerEventRoutes } from './routes/events';
import { registerEventStreamRoutes } from './routes/event-stream';
import { registerInstallmentPlanRoutes } from './routes/installment-plans';
import { registerMarketplaceRoutes } from './routes/marketplace';
import { registerOnboardingRoutes } from './routes/onboarding';
import { registerOrderRoutes } from './routes/orders';
import { registerPaymentRoutes } from './routes/payments';
import { registerPricingRoutes } from './routes/pricing';
import { registerProcessorEventRoutes } from './routes/processor-events';
import { registerProductRoutes } from './routes/products';
import { registerSubscriptionRoutes } from './routes/subscriptions';
import { registerWalletRoutes } from './routes/wallets';
import { forTypedClients } from './openapi-document';
import { ErrorResponse } from './schemas/common';
import { EventStreamFrame } from './schemas/events';
import { PAYOUT_BANK_CURRENCIES } from './schemas/kyc';

export type { GatewayDeps };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's own client errors, reported with catalogue codes instead of its internal ones. */
function platformErrorForFastify(err: FastifyError): PlatformError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new PlatformError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PlatformError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new PlatformError('INVALID_JSON', 'Request body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new PlatformError('INVALID_JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new PlatformError('VALIDATION_FAILED', 'Content-Length does not match the body');
    default:
      if (err.statusCode === 400 && err.name === 'SyntaxError') return new PlatformError('INVALID_JSON');
      // Any other client error Fastify detects before our code runs is still the client's (never a 500).
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        return new PlatformError('VALIDATION_FAILED', err.message);
      }
      return undefined;
  }
}

/**
 * A body validation error as the partner's error: the spec answers non-scalar metadata with 422
 * `Metadata validation failed` (7.1); everything else the schema refuses is 400.
 */
function validationError(err: FastifyError, route?: string): PlatformError {
  const { message, param } = describeValidationError(err.validation!, err.validationContext ?? 'body');
  const missing = err.validationContext === 'body' && err.validation![0]?.keyword === 'required';
  if (missing && route === CHARGE_ROUTE) {
    const required = chargeRequiredError(param);
    if (required) return required;
  }
  // Spec 7.6 names its own message for a bad id on delete merchant.
  if (err.validationContext === 'params' && route === DELETE_MERCHANT_ROUTE) {
    return new PlatformError('INVALID_MERCHANT_ID', undefined, { param, detail: message });
  }
  if (err.validationContext === 'body' && param?.startsWith('metadata')) {
    // A refused key is named by its rule, not echoed: it may be anything up to the body's size.
    if (err.validation![0]?.keyword === 'additionalProperties') {
      return new PlatformError('METADATA_INVALID', undefined, { param: 'metadata', detail: METADATA_KEY_RULE });
    }
    return new PlatformError('METADATA_INVALID', undefined, { param, detail: message });
  }
  // A value a pattern refuses gets the service's own answer to it, not the pattern's text.
  if (err.validation![0]?.keyword === 'pattern') {
    const answer = patternAnswer(err.validationContext ?? 'body', param, route);
    if (answer) return answer;
  }
  // A cursor the schema refuses is no cursor this API issued, as the services answer it.
  if (
    (err.validationContext === 'querystring' && param === 'cursor') ||
    (err.validationContext === 'headers' && param === 'last-event-id')
  ) {
    return new PlatformError('INVALID_CURSOR', undefined, { param, detail: message });
  }
  return new PlatformError('VALIDATION_FAILED', message, { param });
}

const METADATA_KEY_RULE = `metadata keys are 1 to ${METADATA_KEY_MAX_LENGTH} characters, without ".", "[" or "]", and do not start with "$"`;

const CHARGE_ROUTE = `${PARTNER_PREFIX}/payments/charge`;

/** Spec 7.1's answers to a charge without amount, currency or customer.email, as payments gives them. */
function chargeRequiredError(param: string | undefined): PlatformError | undefined {
  if (param === 'amount') return new PlatformError('AMOUNT_REQUIRED', undefined, { param });
  if (param === 'currency' || param === 'customer' || param === 'customer.email') {
    return new PlatformError('MISSING_REQUIRED_FIELDS', undefined, {
      param: param === 'currency' ? param : 'customer.email',
      detail: 'amount, currency and customer.email are required',
    });
  }
  return undefined;
}

/** The services' answers to values the document's patterns refuse (docs/decisions.md, H3-16). */
function patternAnswer(context: string, param: string | undefined, route?: string): PlatformError | undefined {
  if (context === 'body' && param === 'webhook_url')
    return new PlatformError('INVALID_WEBHOOK_URL', undefined, { param });
  if (context === 'querystring' && param === 'currency' && route === PAYOUT_BANKS_ROUTE) {
    return new PlatformError('VALIDATION_FAILED', `currency must be one of ${PAYOUT_BANK_CURRENCIES.join(', ')}`, {
      param,
    });
  }
  return undefined;
}

const PAYOUT_BANKS_ROUTE = `${PARTNER_PREFIX}/marketplace/payout/banks`;

const DELETE_MERCHANT_ROUTE = '/api/v1/partner/marketplace/merchants/:merchantId/delete';
const APPROVE_PAYOUT_ROUTE = `${DASHBOARD_PREFIX}/merchants/:merchantId/payouts/:reference/approve`;

/**
 * Spec 7.8: an approval whose request cannot be validated (path parameters, X-Environment) answers 400
 * `Approval failed`; the detail and param still say what to fix.
 */
function asApprovalFailure(error: unknown): unknown {
  if (error instanceof PlatformError && (error.code === 'VALIDATION_FAILED' || error.code === 'INVALID_ENVIRONMENT')) {
    return new PlatformError('APPROVAL_FAILED', undefined, {
      param: error.param,
      detail: error.detail ?? error.message,
    });
  }
  return error;
}

const pathOf = (url: string) => url.split('?')[0]!;

interface OpenApiDocument {
  paths?: Record<
    string,
    Record<
      string,
      {
        requestBody?: {
          required?: boolean;
          content?: Record<string, { schema?: { required?: unknown[]; minProperties?: number } }>;
        };
      }
    >
  >;
}

function markOptionalBodies(doc: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      // A body is required when it has a required field or must hold at least one (an omitted body
      // is judged as {}, http/validation.ts); any other body may be omitted.
      if (op.requestBody && schema) op.requestBody.required = Boolean(schema.required?.length || schema.minProperties);
    }
  }
  return doc;
}

export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { config, metrics } = deps;
  const app = Fastify({
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    // Request logging is ours (onResponse hook below); the request id is logged as request_id.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: config.HTTP_CONNECTION_TIMEOUT_MS,
    return503OnClosing: true,
    // A malformed URL or an overlong path parameter is the client's: the one error body, a 400.
    frameworkErrors: (err, req, reply) => {
      const http = toHttpError(
        new PlatformError('VALIDATION_FAILED', 'The request URL is malformed or a path parameter is too long', {
          detail: err.code,
        }),
        req.id,
        () => 1,
      );
      void (reply as FastifyReply).status(http.statusCode).header('x-request-id', req.id).send(http.body);
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  // JSON only: anything else is refused as UNSUPPORTED_MEDIA_TYPE rather than parsed as text.
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorResponse);
  app.addSchema(EventStreamFrame);
  app.decorateRequest('caller', null as unknown as CallerInfo);

  const httpRequests = new Counter({
    name: 'ppay_http_requests_total',
    help: 'HTTP requests served by the gateway, by route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [metrics.registry],
  });
  const httpDuration = new Histogram({
    name: 'ppay_http_request_duration_seconds',
    help: 'HTTP request latency at the gateway, by route template',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });

  // Every route is recorded so a path that exists with other methods answers 405 with `Allow`.
  const allowed = new AllowedMethods();
  app.addHook('onRoute', (route) => allowed.add(route.method, route.url));
  const wrongMethod = (method: string, url: string): PlatformError => {
    const allow = allowed.for(pathOf(url));
    if (!allow.length) return new PlatformError('ROUTE_NOT_FOUND', `No route for ${method} ${pathOf(url)}`);
    return new PlatformError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathOf(url)}`, {
      detail: `allowed: ${allow.join(', ')}`,
    });
  };
  const sendWrongMethod = (req: FastifyRequest, reply: FastifyReply) => {
    const error = wrongMethod(req.method, req.url);
    if (error.code === 'METHOD_NOT_ALLOWED') reply.header('allow', allowed.for(pathOf(req.url)).join(', '));
    const http = toHttpError(error, req.id, () => 1);
    return reply.status(http.statusCode).send(http.body);
  };

  app.addHook('onRequest', async (req, reply) => {
    req.caller = { requestId: req.id };
    reply.header('x-request-id', req.id);
    // A wrong or unknown method (QUERY, TRACE…) is answered before Fastify tries to read a body.
    if (!isKnownMethod(req.method) || req.is404) return sendWrongMethod(req, reply);
  });
  // No body at all (no Content-Type, nothing sent) is an empty request: judged as {} so optional-only
  // bodies may be left out; a body that was sent, even JSON `null`, is judged as it is.
  app.addHook('preValidation', async (req) => {
    if ((req.body === null || req.body === undefined) && req.headers['content-type'] === undefined) req.body = {};
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    httpRequests.inc({ method: req.method, route, status_code: String(reply.statusCode) });
    httpDuration.observe({ method: req.method, route }, seconds);
    req.log.info(
      { method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
  });

  app.setErrorHandler(async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    // On an operator route, who may ask is settled before what was asked (operator-access.ts).
    const denial = err.validation ? await operatorDenial(deps, req).catch((failure: unknown) => failure) : undefined;
    const general: unknown =
      denial ?? (err.validation ? validationError(err, req.routeOptions.url) : (platformErrorForFastify(err) ?? err));
    const error = req.routeOptions.url === APPROVE_PAYOUT_ROUTE ? asApprovalFailure(general) : general;
    const http = toHttpError(error, req.id, () => Math.ceil(config.BREAKER_RESET_TIMEOUT_MS / 1000));
    if (http.statusCode >= 500 && http.statusCode !== 501) {
      req.log.error({ err: denial ?? err, status: http.statusCode, code: http.body.error.code }, 'request failed');
    }
    if (http.retryAfterSeconds) reply.header('retry-after', String(http.retryAfterSeconds));
    return reply.status(http.statusCode).send(http.body);
  });
  app.setNotFoundHandler((req, reply) => sendWrongMethod(req, reply));
  // Money travels as common.v1.Money; the REST shape of each amount is declared in the response schema.
  app.addHook('preSerialization', async (req, reply, payload) =>
    presentMoney(responseSchemaFor(req.routeOptions.schema?.response, reply.statusCode), payload),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Partner Payments API',
        version: '1.0.0',
        description:
          'Charges, hosted checkout, pricing, subscriptions, marketplace sub-merchants and API keys. ' +
          'Amounts are integers in the currency minor unit (whole units for JPY, KRW, VND).',
      },
      servers: [{ url: config.PUBLIC_BASE_URL }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          userToken: { type: 'apiKey', in: 'header', name: 'x-id-key' },
          adminToken: {
            type: 'apiKey',
            in: 'header',
            name: 'x-id-key',
            description:
              'A platform administrator token: audience ppay-admin, MFA (acr), at most an hour old, role platform_admin',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // A body whose fields are all optional may be left out (it is then judged as {}): say so.
    transformObject: (documentObject) =>
      forTypedClients(
        markOptionalBodies((documentObject as unknown as { openapiObject: OpenApiDocument }).openapiObject),
      ) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  // After the documentation routes (never limited), before every API and checkout route.
  await registerRateLimits(app, config, metrics);

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_req, reply) => {
    // Ready unless the gateway itself cannot serve correctly (e.g. it would miss key revocations).
    // An open breaker is a downstream outage: other routes still work, and restarting the gateway
    // would not help, so it is reported but does not take the gateway out of the load balancer.
    const { ready, reasons } = deps.readiness();
    const open = Object.values(deps.clients)
      .filter((c) => c.breakerState === 'open')
      .map((c) => c.target);
    return reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? (open.length ? 'degraded' : 'ok') : 'unavailable', reasons, open_breakers: open });
  });

  // Each API scope authenticates in preValidation (before body validation, so a bad credential is a
  // 401 whatever the body holds) and honours Idempotency-Key on every POST in a preHandler that runs
  // after it, so keys are per merchant and mode.
  await app.register(
    async (partner) => {
      partner.addHook('preValidation', apiKeyAuth(deps));
      partner.addHook('preValidation', sandboxKeysOnly(PARTNER_PREFIX));
      registerIdempotency(partner, deps.idempotency);
      for (const register of [
        registerAccountRoutes,
        registerPaymentRoutes,
        registerDisputeRoutes,
        registerPricingRoutes,
        registerProductRoutes,
        registerOrderRoutes,
        registerSubscriptionRoutes,
        registerInstallmentPlanRoutes,
        registerMarketplaceRoutes,
        registerWalletRoutes,
        registerKycRoutes,
        registerEventRoutes,
        registerEventStreamRoutes,
      ]) {
        await register(partner, deps);
      }
    },
    { prefix: PARTNER_PREFIX },
  );
  await app.register(
    async (keys) => {
      keys.addHook('preValidation', userTokenAuth(deps));
      registerIdempotency(keys, deps.idempotency);
      await registerApiKeyRoutes(keys, deps);
    },
    { prefix: PARTNER_PREFIX },
  );
  await app.register(
    async (settings) => {
      settings.addHook('preValidation', userTokenAuth(deps));
      await registerAccountSettingsRoutes(settings, deps);
    },
    { prefix: PARTNER_PREFIX },
  );
  await app.register(
    async (dashboard) => {
      dashboard.addHook('preValidation', userTokenAuth(deps, { environmentHeader: true }));
      registerIdempotency(dashboard, deps.idempotency);
      await registerDashboardRoutes(dashboard, deps);
    },
    { prefix: DASHBOARD_PREFIX },
  );
  await app.register(
    async (admin) => {
      admin.addHook('preValidation', adminTokenAuth(deps));
      await registerAdminRoutes(admin, deps);
    },
    { prefix: ADMIN_PREFIX },
  );
  await app.register(async (checkout) => registerCheckoutRoutes(checkout, deps));
  await app.register(async (onboarding) => registerOnboardingRoutes(onboarding, deps));
  await app.register(async (processors) => registerProcessorEventRoutes(processors, deps));
  return app;
}
