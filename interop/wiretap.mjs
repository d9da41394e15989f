// wiretap.mjs records every JSON-RPC message a client transport carries,
// both ways, for the interop tests that check what crossed the wire.

// tap returns transport, recording each message it sends or delivers into
// wire as {dir: "out" | "in", message}.
export function tap(transport, wire) {
  return new Proxy(transport, {
    set(target, prop, value) {
      if (prop === 'onmessage' && typeof value === 'function') {
        const deliver = value;
        value = (message, ...rest) => {
          wire.push({ dir: 'in', message });
          return deliver(message, ...rest);
        };
      }
      target[prop] = value;
      return true;
    },
    get(target, prop) {
      if (prop === 'send') {
        return (message, ...rest) => {
          wire.push({ dir: 'out', message });
          return target.send(message, ...rest);
        };
      }
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
