import chalk from "chalk";
import { formatName, Named } from "./util";
import { Store } from "@core/store";
import { Button } from "./widgets";
import type { Schema } from "./schema";

export function run(args: string[]): number {
  const store = new Store<Named>();
  console.log(chalk.green(formatName(args[0] ?? "ada", args[1] ?? "lovelace")));
  return store.size() + Button.length;
}

export class App {
  schema?: Schema;

  start(): void {
    run([]);
  }
}
