// Chunk memory a serving worker lends to the main thread. A streamed answer's chunks arrive
// as transferred ArrayBuffers; freed, each would wait for the main thread's next garbage
// collection, which an event loop that allocates little runs only after tens of megabytes of
// them (decision "A streamed answer's chunks go back to their worker"). So the socket writer
// gives a written chunk's memory back to the worker, which fills it again: a big answer then
// passes through a few buffers instead of one per chunk. A chunk that anything else keeps
// (the answer cache, a compressor, an agent's whole answer) is simply never given back.

const lenders = new WeakMap<Buffer, (bytes: ArrayBuffer) => void>()

/** `chunk` (the whole of its ArrayBuffer's use) may go back through `back` once written. */
export function lend(chunk: Buffer, back: (bytes: ArrayBuffer) => void): Buffer {
  lenders.set(chunk, back)
  return chunk
}

/** Something holds `chunk` beyond passing it on: its memory must stay where it is. */
export function hold(chunk: Buffer): void {
  lenders.delete(chunk)
}

/** The socket has written `chunk` and nothing else holds it: its memory goes back to its worker (detaching `chunk`). */
export function giveBack(chunk: Buffer): void {
  const back = lenders.get(chunk)
  if (back === undefined) return
  lenders.delete(chunk)
  back(chunk.buffer as ArrayBuffer)
}
