"""A class on many screens, without Streamlit: the board that holds each class's drawn view on this server and
the web route that hands it to the students' browsers (``classroom.routes``)."""
