/**
 * Run before each test file (vitest's setupFiles). The files share their workers' modules (vitest.config.ts), so a
 * hook that a helper registered when first imported would serve the first file only: the hooks every file needs are
 * registered here.
 */
import { afterEach } from 'vitest';
import { removeTempDirs } from './helpers/temp-dir.js';

afterEach(removeTempDirs);
