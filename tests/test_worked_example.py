"""Every number the worked example prints, from the package, in both conventions."""

import numpy as np

from handmade.course import worked_example as w

COLUMN = w.column_convention()
ROW = w.row_convention()


def test_embeddings_queries_keys_values():
    assert COLUMN["X"].tolist() == [[0, 1, 2], [0, 2, 1], [2, 7, 5], [6, 2, 1], [3, 4, 5]]
    assert COLUMN["Q_x"].tolist() == [[15, 9, 44, 15, 42], [7, 11, 44, 23, 31], [24, 21, 91, 33, 75]]
    assert COLUMN["K_x"].tolist() == [[20, 16, 68, 16, 56], [24, 21, 89, 27, 72], [6, 6, 32, 30, 30]]
    assert COLUMN["V_x"].tolist() == [[1, 2, 11, 14, 10], [5, 7, 34, 31, 29], [7, 11, 52, 47, 43]]


def test_scores_masked_and_scaled():
    assert COLUMN["S"].tolist() == [
        [612, 531, 2411, 1149, 2064],
        [570, 501, 2263, 1071, 1926],
        [2482, 2174, 9820, 4622, 8362],
        [1050, 921, 4123, 1851, 3486],
        [2034, 1773, 8015, 3759, 6834],
    ]
    inf = float("inf")
    assert COLUMN["S_masked"].tolist() == [
        [612, -inf, -inf, -inf, -inf],
        [570, 501, -inf, -inf, -inf],
        [2482, 2174, 9820, -inf, -inf],
        [1050, 921, 4123, 1851, -inf],
        [2034, 1773, 8015, 3759, 6834],
    ]
    printed = [
        [353.33836474, -inf, -inf, -inf, -inf],
        [329.08965344, 289.25248486, -inf, -inf, -inf],
        [1432.98336813, 1255.15948522, 5669.57964344, -inf, -inf],
        [606.21778265, 531.73959792, 2380.41515987, 1068.67534827, -inf],
        [1174.33044753, 1023.64202727, 4627.46240755, 2170.25966188, 3945.61173964],
    ]
    assert np.round(COLUMN["S_scaled"], 8).tolist() == printed


def test_attention_weights_rounded_as_printed():
    rows = [[1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]
    assert np.round(COLUMN["A"], 5).tolist() == rows


def test_the_hand_check_value():
    assert repr(float(w.seed_check_value())) == "2.8063146353260925e-13"


def test_result_and_residual():
    assert COLUMN["R"].tolist() == [[1, 5, 7], [1, 5, 7], [11, 34, 52], [11, 34, 52], [11, 34, 52]]
    assert COLUMN["R_residual"].tolist() == [[1, 6, 9], [1, 7, 8], [13, 41, 57], [17, 36, 53], [14, 38, 57]]


def test_layer_norm_ffn_logits_and_probabilities_rounded_as_printed():
    assert np.round(COLUMN["Y"], 3).tolist() == [
        [-1.313, -1.402, -1.32, -1.247, -1.269],
        [0.202, 0.539, 0.22, 0.045, 0.095],
        [1.111, 0.863, 1.1, 1.201, 1.175],
    ]
    assert np.round(COLUMN["O"], 3).tolist() == [
        [1.798, 2.313, 1.0],
        [1.461, 2.402, 1.0],
        [1.78, 2.32, 1.0],
        [1.955, 2.247, 1.0],
        [1.905, 2.269, 1.0],
    ]
    assert np.round(COLUMN["L"].T, 3).tolist() == [
        [3.313, 9.909, 8.738, 4.111, 6.394, 4.798, 10.253, 3.313, 9.192, 6.424],
        [3.402, 9.323, 8.666, 3.863, 5.383, 4.461, 10.607, 3.402, 7.843, 6.264],
        [3.32, 9.88, 8.74, 4.1, 6.34, 4.78, 10.279, 3.32, 9.12, 6.42],
        [3.247, 10.156, 8.695, 4.201, 6.864, 4.955, 9.987, 3.247, 9.819, 6.448],
        [3.269, 10.08, 8.713, 4.175, 6.716, 4.905, 10.077, 3.269, 9.621, 6.444],
    ]
    probs = np.round(COLUMN["probs"], 3)
    assert probs[0].tolist() == [0.0, 0.305, 0.094, 0.001, 0.009, 0.002, 0.43, 0.0, 0.149, 0.009]
    assert probs[1, :6].tolist() == [0.0, 0.184, 0.095, 0.001, 0.004, 0.001]  # the source's output stops here


def test_row_convention_gives_the_same_numbers():
    assert np.array_equal(ROW["q"], COLUMN["Q_x"].T) and np.array_equal(ROW["v"], COLUMN["V_x"].T)
    for row_name, column_value in [
        ("R", COLUMN["R"]),
        ("R_residual", COLUMN["R_residual"]),
        ("Y", COLUMN["Y"].T),
        ("O", COLUMN["O"]),
        ("logits", COLUMN["L"].T),
        ("probs", COLUMN["probs"]),
    ]:
        np.testing.assert_allclose(ROW[row_name], column_value, rtol=1e-12, atol=1e-12, err_msg=row_name)
