import type { SignalDataSet, SignalDataTypeMap, SignalKeyStoreWithTransaction } from '@whiskeysockets/baileys';

type KeyType = keyof SignalDataTypeMap;
/** Plain, JSON-friendly Signal key data: type -> id -> value. */
export type KeyData = { [T in KeyType]?: Record<string, SignalDataTypeMap[T]> };

/** An in-memory Signal key store for an emulated phone; `onChange` lets the owner persist it. */
export class MemoryKeyStore implements SignalKeyStoreWithTransaction {
  constructor(
    readonly data: KeyData = {},
    private readonly onChange: () => void = () => {},
  ) {}

  get<T extends KeyType>(type: T, ids: string[]): { [id: string]: SignalDataTypeMap[T] } {
    const bucket = this.data[type] as Record<string, SignalDataTypeMap[T]> | undefined;
    const out: { [id: string]: SignalDataTypeMap[T] } = {};
    for (const id of ids) {
      const value = bucket?.[id];
      if (value !== undefined) out[id] = value;
    }
    return out;
  }

  set(changes: SignalDataSet): void {
    for (const type of Object.keys(changes) as KeyType[]) {
      const bucket = (this.data[type] ??= {}) as Record<string, unknown>;
      for (const [id, value] of Object.entries(changes[type] ?? {})) {
        if (value === null || value === undefined) delete bucket[id];
        else bucket[id] = value;
      }
    }
    this.onChange();
  }

  isInTransaction(): boolean {
    return false;
  }

  transaction<T>(exec: () => Promise<T>): Promise<T> {
    return exec();
  }
}
