import { describe, it, expect } from 'vitest';
import { placeholder } from './index.js';
describe('x', () => { it('works', () => { expect(placeholder).toBe(1); }); });
