import { formatName } from "../util";

export type Key = string;

export class Store<T> {
  private items = new Map<Key, T>();

  get(key: Key): T | undefined {
    return this.items.get(key);
  }

  put(key: Key, value: T): void {
    this.items.set(formatName(key, ""), value);
  }

  size(): number {
    return this.items.size;
  }
}
