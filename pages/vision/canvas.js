// A square canvas to draw a digit on, with a mouse, a pen or a finger (Pointer Events; touch-action none, so a
// finger draws instead of scrolling the page). The strokes are drawn at DRAWN_PX x DRAWN_PX; when a stroke
// ends, the drawing is reduced to data.grid x data.grid grey levels (0 = paper, 255 = ink; the browser's own
// smoothing averages each cell) and sent to the server as the component's "image" state: one rerun a stroke.
// "Clear" empties it and sends an image of zeros.
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

export default function ({ data, parentElement, setStateValue }) {
  const board = cell(parentElement, "canvas", "lab-draw");
  const clear = cell(parentElement, "button", "lab-draw-clear");
  clear.type = "button";
  clear.textContent = "Clear";
  board.width = board.height = DRAWN_PX;
  board.setAttribute("aria-label", data.label);
  board.setAttribute("role", "img");
  const pen = board.getContext("2d");
  const brush = (DRAWN_PX / data.grid) * data.brush; // the stroke's width, in grid cells
  const paint = (strokes) => {
    pen.fillStyle = "#ffffff";
    pen.fillRect(0, 0, DRAWN_PX, DRAWN_PX);
    pen.strokeStyle = "#000000";
    pen.fillStyle = "#000000";
    pen.lineCap = pen.lineJoin = "round";
    pen.lineWidth = brush;
    for (const stroke of strokes) {
      pen.beginPath();
      pen.moveTo(stroke[0][0], stroke[0][1]);
      for (const [x, y] of stroke.slice(1)) pen.lineTo(x, y);
      if (stroke.length === 1) pen.arc(stroke[0][0], stroke[0][1], brush / 2, 0, 2 * Math.PI);
      stroke.length === 1 ? pen.fill() : pen.stroke();
    }
  };
  // The strokes live in the element, so that a rerun (which mounts this function again) keeps the drawing.
  board.strokes = board.strokes || [];
  paint(board.strokes);

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
  const send = () => setStateValue("image", reduced());

  const point = (event) => {
    const box = board.getBoundingClientRect();
    return [((event.clientX - box.left) / box.width) * DRAWN_PX, ((event.clientY - box.top) / box.height) * DRAWN_PX];
  };
  let drawing = null;
  const down = (event) => {
    event.preventDefault();
    board.setPointerCapture(event.pointerId);
    drawing = [point(event)];
    board.strokes.push(drawing);
    paint(board.strokes);
  };
  const move = (event) => {
    if (!drawing) return;
    event.preventDefault();
    drawing.push(point(event));
    paint(board.strokes);
  };
  const up = (event) => {
    if (!drawing) return;
    event.preventDefault();
    drawing = null;
    send();
  };
  const wipe = () => {
    board.strokes = [];
    paint(board.strokes);
    send();
  };
  board.addEventListener("pointerdown", down);
  board.addEventListener("pointermove", move);
  board.addEventListener("pointerup", up);
  board.addEventListener("pointercancel", up);
  clear.addEventListener("click", wipe);
  return () => {
    board.removeEventListener("pointerdown", down);
    board.removeEventListener("pointermove", move);
    board.removeEventListener("pointerup", up);
    board.removeEventListener("pointercancel", up);
    clear.removeEventListener("click", wipe);
  };
}
