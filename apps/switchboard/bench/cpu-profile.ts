import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The parts of a V8 `.cpuprofile` (Chrome DevTools format) that a summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The V8 profiler of a process started with `--inspect=127.0.0.1:0`, driven over its inspector
 * WebSocket: unlike `--cpu-prof` (the whole life of the process), it profiles exactly the window
 * a benchmark measures.
 */
export class InspectorProfiler {
  #nextId = 1;
  readonly #pending = new Map<number, (result: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message.result);
    });
  }

  /** `url`: the `ws://127.0.0.1:…` the process printed after "Debugger listening on". */
  static async connect(url: string): Promise<InspectorProfiler> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    const profiler = new InspectorProfiler(socket);
    await profiler.#call('Profiler.enable');
    await profiler.#call('Profiler.setSamplingInterval', { interval: 250 });
    return profiler;
  }

  async during<T>(path: string, run: () => Promise<T>): Promise<T> {
    await this.#call('Profiler.start');
    const result = await run();
    const { profile } = (await this.#call('Profiler.stop')) as { profile: CpuProfile };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(profile));
    console.log(`${path}: top self time\n${topFunctions(profile, 15).join('\n')}`);
    return result;
  }

  close(): void {
    this.socket.close();
  }

  #call(method: string, params: object = {}): Promise<unknown> {
    const id = this.#nextId++;
    const answered = new Promise<unknown>((resolve) => this.#pending.set(id, resolve));
    this.socket.send(JSON.stringify({ id, method, params }));
    return answered;
  }
}

/**
 * The functions with the most self time, as `share% name file:line`, idle excluded. Each sample
 * counts once (one sampling interval): weighing it by the time since the previous sample gave
 * the whole wait in `epoll` to whatever ran first after it (a socket's write callback showed as
 * 7.3 % of an embedded send at 16 in flight, 0.1 % by count).
 */
export function topFunctions(profile: Pick<CpuProfile, 'nodes' | 'samples'>, count: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  for (const id of profile.samples) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(apps|services|libs|tools)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + 1);
  }
  const busy = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, samples]) => `${((100 * samples) / busy).toFixed(1).padStart(5)}% ${name}`);
}
