// A square canvas to draw a digit on, with a mouse, a pen or a finger (Pointer Events; touch-action none, so a
// finger draws instead of scrolling the page). The strokes are drawn at DRAWN_PX x DRAWN_PX; when a stroke
// ends, the drawing is reduced to data.grid x data.grid grey levels (0 = paper, 255 = ink; the browser's own
// smoothing averages each cell) and sent to the server as the component's "image" state: one rerun a stroke.
// "Clear" empties it and sends an image of zeros. One pointer draws at a time (the first finger, or the main
// mouse button); a second finger or a palm is ignored until it lifts.
// The keyboard draws too: the board takes the focus, the arrows move a cursor by one cell of the grid (with
// Shift, four), Space or Enter puts the pen down and lifts it again (the stroke is sent when it lifts, as a
// pointer's is; Escape or leaving the board lifts it too); a line under the board says where the pen is.
const DRAWN_PX = 256;
const CURSOR_COLOUR = "#1f4e9e"; // the focus ring's blue (ui/accessibility.py): 8.6:1 on white
const KEYS_HELP = "Keyboard: arrows move the pen (Shift: faster), Space puts it down or lifts it.";

function cell(parentElement, tag, className) {
  let element = parentElement.querySelector(`:scope ${tag}.${className}`);
  if (!element) {
    element = document.createElement(tag);
    element.className = className;
    parentElement.appendChild(element);
  }
  return element;
}

function keptPicture(data) {
  // The drawing the server kept (data.kept: data.grid * data.grid grey levels 0..255), as a small canvas.
  if (!Array.isArray(data.kept) || data.kept.length !== data.grid * data.grid) return null;
  const small = document.createElement("canvas");
  small.width = small.height = data.grid;
  const context = small.getContext("2d");
  const pixels = context.createImageData(data.grid, data.grid);
  data.kept.forEach((ink, i) => {
    const level = 255 - Math.max(0, Math.min(255, Number(ink) || 0));
    pixels.data.set([level, level, level, 255], 4 * i);
  });
  context.putImageData(pixels, 0, 0);
  return small;
}

export default function ({ data, parentElement, setStateValue }) {
  const board = cell(parentElement, "canvas", "lab-draw");
  const clear = cell(parentElement, "button", "lab-draw-clear");
  const status = cell(parentElement, "p", "lab-draw-status");
  if (board.detach) board.detach(); // called again on the same element (new data): its old handlers go first
  clear.type = "button";
  clear.textContent = "Clear";
  clear.setAttribute("aria-label", "Clear the drawing");
  board.width = board.height = DRAWN_PX;
  board.setAttribute("aria-label", data.label);
  board.setAttribute("tabindex", "0");
  board.setAttribute("role", "application"); // the arrows and Space are the board's own while it has the focus
  board.setAttribute("aria-roledescription", "drawing board");
  status.id = status.id || `lab-draw-status-${Math.random().toString(36).slice(2)}`;
  status.setAttribute("aria-live", "polite");
  board.setAttribute("aria-describedby", status.id);
  const pen = board.getContext("2d");
  const brush = (DRAWN_PX / data.grid) * data.brush; // the stroke's width, in grid cells
  // The strokes live in the element, so that a rerun (which calls this function again) keeps the drawing; a
  // canvas mounted anew (the page came back to it) starts from the picture the server kept, and so does one
  // whose kept picture changed to one it did not send itself (an image code typed, or the teacher's drawing).
  // Its own drawings come back in the order sent, perhaps after a later stroke: those are not a change.
  const kept = Array.isArray(data.kept) ? data.kept.join(",") : "";
  board.pending = board.pending || [];
  const echoed = board.pending.indexOf(kept);
  if (echoed >= 0) board.pending.splice(0, echoed + 1);
  else if (!board.strokes || kept !== board.kept) {
    board.strokes = [];
    board.base = keptPicture(data);
  }
  board.kept = kept;
  const step = DRAWN_PX / data.grid; // one cell of the grid the drawing is sent at
  board.cursor = board.cursor || [DRAWN_PX / 2, DRAWN_PX / 2];
  let keyStroke = null; // the stroke the keyboard's pen is drawing, while it is down
  const cellOf = (v) => Math.min(data.grid, Math.floor(v / step) + 1);
  const say = () => {
    const [x, y] = board.cursor;
    status.textContent = `${keyStroke ? "Pen down" : "Pen up"} at column ${cellOf(x)} of ${data.grid}, row ${
      cellOf(y)} of ${data.grid}. ${KEYS_HELP}`;
  };
  say();
  const paint = (withCursor = true) => {
    pen.fillStyle = "#ffffff";
    pen.fillRect(0, 0, DRAWN_PX, DRAWN_PX);
    if (board.base) {
      pen.imageSmoothingEnabled = true;
      pen.drawImage(board.base, 0, 0, DRAWN_PX, DRAWN_PX);
    }
    pen.strokeStyle = "#000000";
    pen.fillStyle = "#000000";
    pen.lineCap = pen.lineJoin = "round";
    pen.lineWidth = brush;
    for (const stroke of board.strokes) {
      pen.beginPath();
      pen.moveTo(stroke[0][0], stroke[0][1]);
      for (const [x, y] of stroke.slice(1)) pen.lineTo(x, y);
      if (stroke.length === 1) pen.arc(stroke[0][0], stroke[0][1], brush / 2, 0, 2 * Math.PI);
      stroke.length === 1 ? pen.fill() : pen.stroke();
    }
    if (withCursor && document.activeElement === board) { // where the keyboard's pen is: a ring, filled when down
      const [x, y] = board.cursor;
      pen.beginPath();
      pen.arc(x, y, brush / 2, 0, 2 * Math.PI);
      pen.lineWidth = 2;
      pen.strokeStyle = CURSOR_COLOUR;
      pen.stroke();
      if (keyStroke) {
        pen.fillStyle = CURSOR_COLOUR;
        pen.fill();
      }
    }
  };
  paint();

  const reduced = () => {
    const small = document.createElement("canvas");
    small.width = small.height = data.grid;
    const context = small.getContext("2d");
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = "high";
    context.drawImage(board, 0, 0, data.grid, data.grid);
    const pixels = context.getImageData(0, 0, data.grid, data.grid).data;
    const grey = [];
    for (let i = 0; i < pixels.length; i += 4) grey.push(255 - pixels[i]); // ink is dark: 255 - red
    return grey;
  };
  const send = () => {
    paint(false); // the drawing alone, without the keyboard's cursor, is what is sent
    const grey = reduced();
    paint();
    board.pending.push(grey.join(","));
    setStateValue("image", grey);
  };

  const point = (event) => {
    const box = board.getBoundingClientRect();
    return [((event.clientX - box.left) / box.width) * DRAWN_PX, ((event.clientY - box.top) / box.height) * DRAWN_PX];
  };
  let drawing = null, pointer = null;
  const down = (event) => {
    event.preventDefault();
    if (drawing || !event.isPrimary || event.button !== 0) return; // one pointer, the main button
    pointer = event.pointerId;
    board.setPointerCapture(pointer);
    drawing = [point(event)];
    board.strokes.push(drawing);
    paint();
  };
  const move = (event) => {
    if (!drawing || event.pointerId !== pointer) return;
    event.preventDefault();
    drawing.push(point(event));
    paint();
  };
  const up = (event) => {
    if (!drawing || event.pointerId !== pointer) return;
    event.preventDefault();
    drawing = pointer = null;
    send();
  };
  const lift = () => {
    keyStroke = null;
    say();
    send();
  };
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const key = (event) => {
    if (drawing) return; // a pointer is drawing
    if (event.key in ARROWS) {
      const [dx, dy] = ARROWS[event.key], by = step * (event.shiftKey ? 4 : 1);
      const inside = (v) => Math.max(step / 2, Math.min(DRAWN_PX - step / 2, v));
      board.cursor = [inside(board.cursor[0] + dx * by), inside(board.cursor[1] + dy * by)];
      if (keyStroke) keyStroke.push([...board.cursor]);
    } else if (event.key === " " || event.key === "Enter") {
      if (keyStroke) {
        event.preventDefault();
        lift();
        return;
      }
      keyStroke = [[...board.cursor]];
      board.strokes.push(keyStroke);
    } else if (event.key === "Escape" && keyStroke) {
      lift();
      return;
    } else {
      return; // Tab and the rest keep their meaning
    }
    event.preventDefault();
    say();
    paint();
  };
  const focusChanged = () => {
    if (keyStroke && document.activeElement !== board) return lift();
    paint();
  };
  const wipe = () => {
    board.strokes = [];
    board.base = null;
    paint();
    send();
  };
  board.addEventListener("pointerdown", down);
  board.addEventListener("pointermove", move);
  board.addEventListener("pointerup", up);
  board.addEventListener("pointercancel", up);
  clear.addEventListener("click", wipe);
  board.addEventListener("keydown", key);
  board.addEventListener("focus", focusChanged);
  board.addEventListener("blur", focusChanged);
  board.detach = () => {
    board.removeEventListener("keydown", key);
    board.removeEventListener("focus", focusChanged);
    board.removeEventListener("blur", focusChanged);
    board.removeEventListener("pointerdown", down);
    board.removeEventListener("pointermove", move);
    board.removeEventListener("pointerup", up);
    board.removeEventListener("pointercancel", up);
    clear.removeEventListener("click", wipe);
    board.detach = null;
  };
  return board.detach;
}
