/**
 * Preloaded (`--expose-gc --require`) into every platform process by `bench -- memory` only: on SIGUSR2 the
 * process runs a full GC, so the bench reads RSS and heap after garbage is gone. Without it, "growth"
 * between two runs was mostly where each process happened to be in its GC cycle (the same build read
 * -10.8 % and +20.5 % for the gateway in two runs).
 */
// Always handled (SIGUSR2's default would end the process), a no-op if `--expose-gc` is missing.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
});
