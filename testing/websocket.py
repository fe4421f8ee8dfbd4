"""JavaScript for scripts a test or a benchmark installs in a page (``add_init_script``) to watch what
Streamlit's websocket carries, without the messages' schema:

- ``topField(bytes, wanted)``: the value of top-level field number ``wanted`` of the protobuf message in
  the ``Uint8Array`` ``bytes``: a number for a varint field, ``true`` for any other wire type,
  ``undefined`` when the field is absent or the bytes are not a message;
- ``tapWebSockets(received, sent)``: every websocket the page opens from then on hands each binary
  frame it receives to ``received(bytes)`` and each it sends to ``sent(bytes)`` (optional).
"""

WEBSOCKET_JS = """
function topField(bytes, wanted) {
  let at = 0;
  const varint = () => {
    let value = 0, scale = 1, byte;
    do { byte = bytes[at++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80 && at < bytes.length);
    return value;
  };
  while (at < bytes.length) {
    const key = varint(), number = Math.floor(key / 8), wire = key & 7;
    let value = true;
    if (wire === 0) value = varint();
    else if (wire === 1) at += 8;
    else if (wire === 2) { const length = varint(); at += length; }
    else if (wire === 5) at += 4;
    else return undefined;
    if (number === wanted) return value;
  }
  return undefined;
}

function tapWebSockets(received, sent) {
  const bytesOf = (data) => data instanceof ArrayBuffer ? new Uint8Array(data)
    : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (event.data instanceof Blob) event.data.arrayBuffer().then((data) => received(bytesOf(data)));
        else if (bytesOf(event.data)) received(bytesOf(event.data));
      });
    }
    send(data) {
      if (sent && bytesOf(data)) sent(bytesOf(data));
      return super.send(data);
    }
  };
}
"""
