import { ERROR_DEFAULT_MESSAGE, ERROR_HTTP_STATUS, ErrorCode } from '@switchboard/contracts';
import { maxHeaderSize } from 'node:http';
import { BODY_LIMIT_BYTES } from '../http/body.js';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../http/errors.js';
import { REQUEST_LIMITS } from '../http/request-limits.js';

const MIB = 1024 * 1024;

function errorTable(): string {
  const rows = ErrorCode.options.map((code) => `| ${ERROR_HTTP_STATUS[code]} | \`${code}\` | ${ERROR_DEFAULT_MESSAGE[code]} |`);
  return ['| HTTP | code | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The document's description: what every endpoint shares, said once. */
export function apiDescription(): string {
  return `Send WhatsApp messages through your own account: create a session, scan its QR code, send.

**Paths.** Every endpoint answers under \`/v1/...\` and, identically, under \`/api/v1/...\`. Only the
\`/v1\` form is listed here. \`/healthz\`, \`/readyz\`, this document (\`/v1/openapi.json\`) and the
docs page (\`/docs\`) need no key.

**Authentication.** \`Authorization: Bearer <API_KEY>\` on every other call. A missing header, another
scheme, or an unknown or revoked key answers 401 \`UNAUTHORIZED\` with \`WWW-Authenticate: Bearer\`; a valid
key without the endpoint's scope (\`api\` for sessions and messages, \`admin\` for \`/v1/admin\`) answers 403
\`FORBIDDEN\`. A revoked key stops working within one second on every gateway.

**Envelopes.** Success: \`{"success": true, "data": ...}\` (201 for creates, 200 otherwise), or
\`{"success": true, "message": ...}\` for deletes and revocations. Failure:
\`{"success": false, "error": {"code", "message", "details"?, "requestId"}}\`; \`VALIDATION_ERROR\` lists every
problem as \`details: [{path, message}]\` (body fields by their own path, e.g. \`buttons.1.text\`; query and
path parameters as \`query.limit\`, \`params.sessionId\`). Unknown body fields are rejected.

**Request ids.** Every response carries \`X-Request-Id\`, the W3C trace id (32 hex characters) of the
request; error bodies repeat it as \`requestId\`. Quote it when reporting a problem.

**Bodies.** \`Content-Type: application/json\` (else 415). At most ${BODY_LIMIT_BYTES / MIB} MiB (else 413
\`PAYLOAD_TOO_LARGE\` with \`details: {limit, size}\` in bytes): inline base64 media fits up to the image (5 MiB),
video and audio (16 MiB) limits; a document larger than about 17 MiB must be sent as a URL. Media over its
type's limit is 422 \`MEDIA_TOO_LARGE\` with \`details: {mediaType, limit, size}\`.

**Idempotency-Key.** \`POST /v1/sessions\`, \`POST /v1/webhooks\` and the message sends accept an \`Idempotency-Key\` header (1–255
printable ASCII characters, keys are per account). The same key with the same body (field order does not
matter) within 24 h answers for the first request and creates or sends nothing again; the same key with
another body answers 409 \`IDEMPOTENCY_KEY_REUSED\`; a malformed key answers 400 at
\`headers.idempotency-key\`. A repeated session create answers 201 with the first session's id and the QR
code it shows now (codes rotate); once that session is no longer pending it shows no QR code, and the
repeat answers 409 \`SESSION_NOT_PENDING\` with \`details: {status, sessionId}\`. A request that failed
(e.g. 429) leaves the key free. The admin POSTs (\`/v1/admin/accounts\`, \`/v1/admin/accounts/{accountId}/keys\`)
do NOT support it: their answer is a one-time API key that is never stored and cannot be replayed, so a
request with the header answers 400 \`VALIDATION_ERROR\` at \`headers.idempotency-key\`. Neither do the other
webhook POSTs (secret rotation, replay, test): they answer the same 400 rather than ignore the header. A
repeated webhook create answers 201 for the first webhook as it is now, with its current secret (the one
the first answer showed, unless it was rotated since), or 404 \`WEBHOOK_NOT_FOUND\` once it was deleted.

**Malformed and slow requests.** Every refusal is the same envelope with \`X-Request-Id\` and never repeats
what was sent. A path with a bad \`%\` escape: 400 \`VALIDATION_ERROR\` at \`url\`. Bytes HTTP does not allow in
the method, path or headers, Content-Length together with Transfer-Encoding, a malformed chunk: 400
\`VALIDATION_ERROR\` (\`details\` name the part); a request line and headers over ${maxHeaderSize / 1024} KiB: 431
\`HEADERS_TOO_LARGE\`; both close the connection. A request must arrive whole (head and body) within
${REQUEST_LIMITS.requestTimeoutMs / 1000} s, and its body at ${REQUEST_LIMITS.minBodyBytesPerSecond} bytes/s on average at least once ${REQUEST_LIMITS.bodyGraceMs / 1000} s have passed; else 408
\`REQUEST_TIMEOUT\` (\`details\` give the limit) and the connection is closed.

**Retries.** 503 \`SERVICE_UNAVAILABLE\` carries \`Retry-After: ${RETRY_AFTER_UNAVAILABLE_SECONDS}\`; 429
\`DAILY_MESSAGE_LIMIT_REACHED\` carries \`Retry-After\` in seconds until 00:00 UTC.

**Error codes**

${errorTable()}`;
}
