import type { ObservedResponse } from '@switchboard/gateway/testing';

/** What a client sees of one HTTP exchange. */
export interface HttpResult<T = any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  status: number;
  headers: Headers;
  body: T;
}

/** Every response an ApiClient of this test file got (checked against the OpenAPI document after the file). */
export const observedResponses: ObservedResponse[] = [];

/** A small JSON client with the caller's API key, as an integrator would write one. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
  ) {}

  withKey(apiKey: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, apiKey);
  }

  get(path: string): Promise<HttpResult> {
    return this.send('GET', path);
  }

  post(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.send('POST', path, body, headers);
  }

  patch(path: string, body: unknown): Promise<HttpResult> {
    return this.send('PATCH', path, body);
  }

  delete(path: string): Promise<HttpResult> {
    return this.send('DELETE', path);
  }

  send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.sendRaw(method, path, body === undefined ? undefined : JSON.stringify(body), headers);
  }

  /** `body` sent as given, as JSON: for bodies made too large or malformed on purpose. */
  async sendRaw(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    const result = { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    observedResponses.push({ method, url: path, status: result.status, code: result.body?.error?.code });
    return result;
  }
}

/** Polls `read` until `done` holds for its value; returns that value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > giveUpAt) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
