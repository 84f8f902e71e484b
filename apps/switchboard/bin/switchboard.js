#!/usr/bin/env node
// The `switchboard` CLI (npx switchboard …); built by `npx nx run @switchboard/app:build`.
import '../dist/src/cli/main.js';
