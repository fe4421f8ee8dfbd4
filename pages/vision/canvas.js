// A square canvas to draw a digit on, with a mouse, a pen or a finger (Pointer Events; touch-action none, so a
// finger draws instead of scrolling the page). The strokes are drawn at DRAWN_PX x DRAWN_PX; when a stroke
// ends, the drawing is reduced to data.grid x data.grid grey levels (0 = paper, 255 = ink; the browser's own
// smoothing averages each cell) and sent to the server as the component's "image" state: one rerun a stroke.
// "Clear" empties it and sends an image of zeros. One pointer draws at a time (the first finger, or the main
// mouse button); a second finger or a palm is ignored until it lifts.
const DRAWN_PX = 256;

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
  if (board.detach) board.detach(); // called again on the same element (new data): its old handlers go first
  clear.type = "button";
  clear.textContent = "Clear";
  clear.setAttribute("aria-label", "Clear the drawing");
  board.width = board.height = DRAWN_PX;
  board.setAttribute("aria-label", data.label);
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
  const paint = () => {
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
    const grey = reduced();
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
  board.detach = () => {
    board.removeEventListener("pointerdown", down);
    board.removeEventListener("pointermove", move);
    board.removeEventListener("pointerup", up);
    board.removeEventListener("pointercancel", up);
    clear.removeEventListener("click", wipe);
    board.detach = null;
  };
  return board.detach;
}
