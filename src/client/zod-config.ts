import { z } from "zod";

/**
 * Imported first by main.tsx: zod must not probe `new Function` (its JIT), because the
 * Content-Security-Policy has no 'unsafe-eval' and the probe would be reported as a violation.
 */
z.config({ jitless: true });
