"""carouseld-kiosk-touch-pointer's own logic, without devices: the calibration matrix a touch
goes through, the choice of whether a cage needs it, and the reading of udevadm's monitor.
The devices' part (a uinput touchscreen grabbed, its tap reaching Chromium through cage as a
pointer) is tests/system's kiosk_tap_centers_side_card, in a booted Debian 12."""

import importlib.machinery
import importlib.util
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "carouseld-kiosk-touch-pointer")


def load():
    loader = importlib.machinery.SourceFileLoader("touch_pointer", SCRIPT)
    spec = importlib.util.spec_from_loader("touch_pointer", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


tp = load()

# docs/KIOSK.md "Touch under rotation": the matrices carouseld-kiosk-touch writes per turn.
MATRICES = {0: "1 0 0 0 1 0", 90: "0 -1 1 1 0 0", 180: "-1 0 1 0 -1 1", 270: "0 1 0 -1 0 1"}


@pytest.mark.parametrize("turn, panel, picture", [
    # A touch at panel fraction (0.25, 0.1): by hand, (a x + b y + c, d x + e y + f).
    (0, (0.25, 0.1), (0.25, 0.1)),
    (90, (0.25, 0.1), (0.9, 0.25)),     # (-y + 1, x)
    (180, (0.25, 0.1), (0.75, 0.9)),    # (-x + 1, -y + 1)
    (270, (0.25, 0.1), (0.1, 0.75)),    # (y, -x + 1)
])
def test_a_touch_lands_where_libinput_would_put_it_for_each_turn(turn, panel, picture):
    got = tp.transform(tp.parse_matrix(MATRICES[turn]), *panel)
    assert got == pytest.approx(picture)


def test_a_point_outside_the_picture_is_clamped_to_its_edge():
    # A panel calibration that overshoots (scale 1.2 about the corner): the far edge stays on.
    assert tp.transform(tp.parse_matrix("1.2 0 0 0 1.2 -0.1"), 1.0, 0.0) == (1.0, 0.0)


def test_axis_values_are_normalized_over_their_range():
    assert tp.normalize(0, 0, 1279) == 0.0
    assert tp.normalize(1279, 0, 1279) == 1.0
    assert tp.normalize(640, 0, 1280) == 0.5
    assert tp.normalize(-5, 0, 100) == 0.0          # a controller reporting past its minimum
    assert tp.normalize(7, 7, 7) == 0.0             # a degenerate axis: no division by zero


@pytest.mark.parametrize("text", ["1 0 0 0 1", "1 0 0 0 1 0 0", "a b c d e f", "1 0 0 0 1 nan", "1e9 0 0 0 1 0"])
def test_a_malformed_matrix_is_refused(text):
    with pytest.raises(ValueError):
        tp.parse_matrix(text)


def test_no_matrix_is_the_identity():
    assert tp.parse_matrix(None) == tp.IDENTITY
    assert tp.parse_matrix("  ") == tp.IDENTITY


@pytest.mark.parametrize("mode, said, needed", [
    ("auto", "Cage version 0.1.4", True),       # Debian 12: no wl_touch.frame
    ("auto", "Cage version 0.1.5", True),
    ("auto", "cage version 0.2.0", False),      # Debian 13: touch frames sent
    ("auto", "Cage version 0.2.1-dev", False),
    ("auto", None, False),                      # cage not runnable: left alone, said why
    ("on", "Cage version 0.2.0", True),
    ("off", "Cage version 0.1.4", False),
])
def test_whether_the_pointer_is_needed(mode, said, needed):
    yes, why = tp.needed(mode, said)
    assert yes is needed
    assert why


def test_an_unknown_mode_names_the_variable_and_the_file():
    with pytest.raises(ValueError, match="CAROUSELD_KIOSK_TOUCH_POINTER .*carouseld-kiosk.env.*'maybe'"):
        tp.needed("maybe", "Cage version 0.1.4")


def test_the_monitor_is_read_in_blocks_across_pipe_reads():
    r, w = os.pipe()
    try:
        reader = tp.MonitorReader(r)
        assert reader.read() == []      # nothing yet: no block, no wait
        os.write(w, b"monitor will print the received events for:\nUDEV - the event which udev sends out after rule processing\n\n"
                    b"UDEV  [12.5] add      /devices/virtual/input/input7/event5 (input)\nACTION=add\nDEVNAME=/dev/input/event5\n"
                    b"ID_INPUT_TOUCHSCREEN=1\nLIBINPUT_CALIBRATION_MATRIX=0 -1 1 1 0 0\n\nUDEV  [12.6] change   /devices/vir")
        blocks = reader.read()
        assert blocks == [{"ACTION": "add", "DEVNAME": "/dev/input/event5", "ID_INPUT_TOUCHSCREEN": "1",
                           "LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"}]
        os.write(w, b"tual/input/input7/event5 (input)\nACTION=change\nDEVNAME=/dev/input/event5\n\n")
        assert reader.read() == [{"ACTION": "change", "DEVNAME": "/dev/input/event5"}]
        os.close(w)
        w = -1
        with pytest.raises(EOFError):
            reader.read()
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
