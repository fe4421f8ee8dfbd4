"""A formula's equations, set side by side with a quad between them, are cut apart for a compact screen, and only
there; a space inside a group, an environment or a pair of growing delimiters stays where it is."""

from ui.formulas import formula_latex, parts

MASK = (
    r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),\qquad "
    r"M_{ij} = \begin{cases}0 & \text{may}\quad\text{attend}\\ -\infty & \text{otherwise}\end{cases}"
)


def test_a_formula_is_cut_at_its_top_level_quads_only():
    assert parts(MASK) == [
        r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),",
        r"M_{ij} = \begin{cases}0 & \text{may}\quad\text{attend}\\ -\infty & \text{otherwise}\end{cases}",
    ]
    assert parts(r"\left( a \quad b \right) \quad c,\ d \qquad {e \quad f}") == [
        r"\left( a \quad b \right)",
        r"c,\ d",
        r"{e \quad f}",
    ]
    assert parts(r"\quadratic x \quad y") == [r"\quadratic x", "y"]  # a longer command is not a space
    assert parts(r"x = \{1 \quad 2\}") == [r"x = \{1", r"2\}"]  # escaped braces open no group
    assert parts(r"d_k = 64") == [r"d_k = 64"]


def test_a_wide_screen_keeps_the_lines_as_written_and_a_narrow_one_sets_each_equation_on_its_own():
    assert formula_latex(MASK, narrow=False) == MASK
    assert formula_latex(r"a,\quad b", "c", narrow=False) == r"\begin{gathered}a,\quad b \\[2pt] c\end{gathered}"
    assert formula_latex(r"a,\quad b", "c", narrow=True) == r"\begin{gathered}a, \\[2pt] b \\[2pt] c\end{gathered}"
    assert formula_latex("x = 1", narrow=True) == "x = 1"


def test_an_allowed_break_breaks_a_narrow_screens_line_and_is_not_drawn_on_a_wide_one():
    concat = r"\mathrm{MultiHead}(X) = \allowbreak \mathrm{Concat}(\mathrm{head}_1, \dots)\,W^O"
    assert (
        formula_latex(concat, narrow=False) == r"\mathrm{MultiHead}(X) = \mathrm{Concat}(\mathrm{head}_1, \dots)\,W^O"
    )
    assert formula_latex(concat, narrow=True) == (
        r"\begin{gathered}\mathrm{MultiHead}(X) = \\[2pt] \mathrm{Concat}(\mathrm{head}_1, \dots)\,W^O\end{gathered}"
    )
