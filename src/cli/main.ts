#!/usr/bin/env bun
/**
 * The `tinyhost` command. Sub-commands live in ./commands; this file only dispatches.
 */
import { runCli } from "./cli.ts";

const code = await runCli(process.argv.slice(2));
process.exit(code);
