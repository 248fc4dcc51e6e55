// A minimal correct Alak bot: it tracks the board and plays the leftmost legal point.
//
// Build and check it with:
//   javac AlakBot.java && referee check alak "java -cp . AlakBot"
// Only moves go to System.out (one line, flushed); anything else goes to System.err.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class AlakBot {
    static final int SIZE = 11; // points a..k, the tournament's board unless announced otherwise
    static final char[] board = new char[SIZE];

    // Put `me` on `point`; remove the enemy runs next to it that have no liberty left.
    // Returns the captured points (the opponent may not play there on its next turn).
    static List<Integer> place(int point, char me, char other) {
        board[point] = me;
        List<Integer> captured = new ArrayList<>();
        for (int step = -1; step <= 1; step += 2) {
            List<Integer> run = new ArrayList<>();
            int j = point + step;
            while (j >= 0 && j < SIZE && board[j] == other) {
                run.add(j);
                j += step;
            }
            if (!run.isEmpty() && (j < 0 || j >= SIZE || board[j] == me)) {
                captured.addAll(run);
            }
        }
        for (int j : captured) {
            board[j] = '.';
        }
        return captured;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        java.util.Arrays.fill(board, '.');
        String colour = in.readLine();
        boolean blue = "blue".equals(colour == null ? null : colour.trim());
        char me = blue ? 'X' : 'O';
        char other = blue ? 'O' : 'X';
        List<Integer> banned = new ArrayList<>(); // where my stones were just captured
        boolean myTurn = blue; // blue answers its colour with its first move
        if (java.util.Arrays.asList(args).contains("--position")) {
            // Every game starts from an opening: "position K", then its K moves, oldest first,
            // the first one blue's, each played as if watched.
            int count = Integer.parseInt(in.readLine().trim().split("\\s+")[1]);
            for (int ply = 0; ply < count; ply++) {
                int point = in.readLine().trim().charAt(0) - 'a';
                char mover = ply % 2 == 0 ? 'X' : 'O';
                List<Integer> captured = place(point, mover, mover == 'X' ? 'O' : 'X');
                banned = mover == me ? new ArrayList<>() : captured;
            }
            myTurn = (count % 2 == 0) == blue; // blue moves after an even number of plies
        }
        while (true) {
            if (myTurn) {
                for (int p = 0; p < SIZE; p++) {
                    if (board[p] == '.' && !banned.contains(p)) {
                        System.out.println((char) ('a' + p));
                        System.out.flush();
                        place(p, me, other);
                        break;
                    }
                }
            }
            String line = in.readLine();
            if (line == null || line.trim().equals("END")) {
                return; // the game is over (or the referee went away)
            }
            banned = place(line.trim().charAt(0) - 'a', other, me);
            myTurn = true;
        }
    }
}
