export interface Named {
  display(): string;
}

export function formatName(first: string, last: string): string {
  return `${first} ${last}`.trim();
}
