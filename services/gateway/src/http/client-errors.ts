import { ApiError, HTTP_HEADERS } from '@switchboard/contracts';
import type { ValidationIssue } from '@switchboard/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { headersTimeoutMs } from './request-limits.js';
import type { RequestLimits } from './request-limits.js';
import { newRequestId } from './trace.js';

/** What node's HTTP server hands to 'clientError': a parser error (`HPE_*`) or a timeout. */
interface ConnectionError extends Error {
  code?: string;
}

/** Parser errors by the part of the request they are about; the parser's own wording is not shown. */
const PARSE_FAILURES: Readonly<Record<string, ValidationIssue>> = {
  HPE_INVALID_METHOD: { path: 'method', message: 'Not an HTTP method.' },
  HPE_INVALID_URL: { path: 'url', message: 'The request target holds a character HTTP does not allow (a control character or a space).' },
  HPE_INVALID_VERSION: { path: 'version', message: 'Only HTTP/1.0 and HTTP/1.1 are served.' },
  HPE_INVALID_HEADER_TOKEN: { path: 'headers', message: 'A header name or value holds a character HTTP does not allow.' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { path: 'headers', message: 'Content-Length and Transfer-Encoding may not both be sent.' },
  HPE_INVALID_CONTENT_LENGTH: { path: 'headers.content-length', message: 'Content-Length must be one non-negative integer.' },
  HPE_INVALID_TRANSFER_ENCODING: { path: 'headers.transfer-encoding', message: 'Transfer-Encoding must end with chunked.' },
  HPE_INVALID_CHUNK_SIZE: { path: 'body', message: 'The chunked body is malformed (a chunk size must be hexadecimal).' },
};
const NOT_HTTP: ValidationIssue = { path: 'request', message: 'The request is not valid HTTP/1.1.' };

/**
 * The answer to a request node's HTTP server refused before fastify saw it: 408 when the client
 * was too slow (with the head's timeout while the head is incomplete, the whole request's after),
 * 431 over the header limit, 400 for anything the parser cannot read.
 */
export function clientErrorAnswer(code: string | undefined, limits: RequestLimits, headReceived: boolean): ApiError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      const [what, ms] = headReceived ? ['request', limits.requestTimeoutMs] : ['request head', headersTimeoutMs(limits)];
      return new ApiError('REQUEST_TIMEOUT', `The ${what} was not received within ${ms / 1000} s.`, { timeoutSeconds: ms / 1000 });
    }
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', `The request line and headers exceed ${maxHeaderSize / 1024} KiB together.`, {
        limitBytes: maxHeaderSize,
      });
    default:
      return new ApiError('VALIDATION_ERROR', undefined, [(code && PARSE_FAILURES[code]) || NOT_HTTP]);
  }
}

/** A complete HTTP/1.1 response with the envelope, written straight to the socket; the connection then closes. */
export function rawErrorResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify(error.toEnvelope(requestId));
  const head = [
    `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus] ?? ''}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `${HTTP_HEADERS.requestId}: ${requestId}`,
    'connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * fastify's `clientErrorHandler`: answers in the envelope where the connection still allows an
 * answer (as node's own handler does: not once a response has started), then closes it. A request
 * already under way (a bad chunk, a body cut by the timeout) keeps its request id, so the answer
 * and the request's log lines match; otherwise a new id is minted.
 */
export function answerClientErrors(options: {
  limits: RequestLimits;
  logger: FastifyBaseLogger;
  requestIdOf: (request: IncomingMessage) => string | undefined;
}): (error: ConnectionError, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = responseOn(socket);
    if (socket.writable && !inFlight?.headersSent) {
      const answer = clientErrorAnswer(error.code, options.limits, inFlight !== undefined);
      const requestId = (inFlight && options.requestIdOf(inFlight.req)) ?? newRequestId();
      options.logger.info({ requestId, code: error.code, status: answer.httpStatus }, 'refused a request before routing');
      socket.write(rawErrorResponse(answer, requestId));
    }
    socket.destroy();
  };
}

/** The response node has attached to this connection, if a request is under way on it. */
function responseOn(socket: Duplex): ServerResponse | undefined {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}
