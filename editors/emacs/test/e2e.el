;;; e2e.el --- End-to-end test of efmesh-mode with eglot and the real server  -*- lexical-binding: t; -*-

;; EFMESH_BIN=/path/to/efmesh EFMESH_PROJECT=/tmp/copy-of-hospital \
;;   emacs --batch -l editors/emacs/test/e2e.el
;;
;; EFMESH_PROJECT must be a scratch copy of examples/hospital: the test
;; writes an unknown column into a model there before opening it, and
;; later a macro file (macros/time.sql) and two models calling it.  Prints
;; one line per assertion and exits 1 when one fails.
;;
;; Batch Emacs is never idle, so idle timers (eglot's didChange, flymake's
;; start) never fire by themselves: `efmesh-test--idle' runs them, as a
;; pause of the user would.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

;; Batch Emacs loads site-start (Debian's adds its elpa-* packages) but no
;; init file: eglot installed with package.el needs package-initialize.
(unless (require 'eglot nil t)
  (package-initialize))

(defconst efmesh-test--dir
  (file-name-directory (or load-file-name buffer-file-name)))
(add-to-list 'load-path (expand-file-name ".." efmesh-test--dir))
(require 'efmesh-mode)

(defconst efmesh-test--bin (or (getenv "EFMESH_BIN") "efmesh"))
(defconst efmesh-test--project (getenv "EFMESH_PROJECT"))
(defconst efmesh-test--timeout 20.0)

(defvar efmesh-test--passed 0)
(defvar efmesh-test--failed 0)

(defun efmesh-test--out (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun efmesh-test--check (ok what &optional detail)
  (if ok
      (progn (cl-incf efmesh-test--passed) (efmesh-test--out "ok   %s" what))
    (cl-incf efmesh-test--failed)
    (efmesh-test--out "FAIL %s" what)
    (when detail
      (efmesh-test--out "     %s"
                        (replace-regexp-in-string
                         "\n" "\n     "
                         (if (stringp detail) detail (format "%S" detail))))))
  ok)

(defun efmesh-test--idle ()
  "Run the idle timers that are due, as when the user pauses."
  (dolist (timer (copy-sequence timer-idle-list))
    (when (memq timer timer-idle-list)
      (timer-event-handler timer))))

(defun efmesh-test--wait (pred &optional timeout)
  "Wait until PRED returns non-nil, at most TIMEOUT seconds; return its value."
  (let ((deadline (+ (float-time) (or timeout efmesh-test--timeout)))
        value)
    (while (and (not (setq value (funcall pred)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (efmesh-test--idle))
    value))

(defun efmesh-test--line-col (pos)
  "The 0-based line and character of POS, as a list."
  (save-excursion
    (goto-char pos)
    (list (1- (line-number-at-pos)) (- pos (line-beginning-position)))))

(defun efmesh-test--diag (needle)
  "The flymake diagnostic of the current buffer whose text mentions NEEDLE."
  (cl-find-if (lambda (d) (string-match-p (regexp-quote needle) (flymake-diagnostic-text d)))
              (flymake-diagnostics)))

;; Code actions, as eglot offers them.

(defun efmesh-test--action (beg end pattern)
  "The title of the code action between BEG and END matching PATTERN, or nil."
  (cl-find-if (lambda (title) (string-match-p (regexp-quote pattern) title))
              (mapcar (lambda (a) (plist-get a :title)) (eglot-code-actions beg end))))

(defun efmesh-test--apply-action (beg end pattern expected)
  "Pick the code action matching PATTERN from eglot's menu between BEG and END.
Then check that the buffer holds EXPECTED."
  (let* ((actions (eglot-code-actions beg end))
         (titles (mapcar (lambda (a) (plist-get a :title)) actions))
         (title (efmesh-test--action beg end pattern))
         prompted)
    (efmesh-test--check title (format "a code action offers %S" pattern) titles)
    (when title
      (goto-char beg)
      ;; The interactive path: eglot asks which action to run (a
      ;; completing-read, since the command came from the keyboard).
      (let ((last-nonmenu-event ?a))
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (prompt collection &rest _)
                     (setq prompted (cons prompt (mapcar #'car collection)))
                     title)))
          (eglot-code-actions beg end nil t)))
      (efmesh-test--check (member title (cdr prompted)) (format "eglot's menu offers %S" title) prompted)
      (efmesh-test--check (save-excursion
                            (goto-char (point-min))
                            (search-forward expected nil t))
                          (format "applying it writes %s" expected)
                          (buffer-string)))))

;; Macros: a project macro in macros/time.sql and two models calling it,
;; written in buffers and saved as a user would.

(defconst efmesh-test--macro-text
  (concat "-- Whole hours from a to b; b is the stay's end unless given.\n"
          "MACRO hours_between(a, b := ended_at) AS date_diff('hour', @a, @b);\n"))

(defconst efmesh-test--stay-hours-text
  (concat "MODEL (\n  name mart.stay_hours,\n  kind VIEW,\n  description 'Whole hours of every stay'\n);\n\n"
          "SELECT stay_id, dept, @hours_between(started_at, ended_at) AS whole_hours\n"
          "FROM @ref(med.stays)\n"))

;; med.cases has no ended_at: the macro's default names an unknown column.
(defconst efmesh-test--case-hours-text
  (concat "MODEL (\n  name mart.case_hours,\n  kind VIEW,\n  description 'Whole hours since each case moved last'\n);\n\n"
          "SELECT case_id, @hours_between(since) AS hours_here\n"
          "FROM @ref(med.cases)\n"))

(defun efmesh-test--new-file (rel text server)
  "Write TEXT into a new buffer visiting REL, save it; return the buffer.
Checks that it joins SERVER."
  (let ((file (expand-file-name rel efmesh-test--project)))
    (make-directory (file-name-directory file) t)
    (find-file file)
    (insert text)
    (save-buffer)
    (run-hooks 'post-command-hook)
    (efmesh-test--check (efmesh-test--wait (lambda () (and eglot--managed-mode (eq (eglot-current-server) server))))
                        (format "macros: %s is written in efmesh-mode and joins the server" rel)
                        (list major-mode (eglot-current-server)))
    (current-buffer)))

(defun efmesh-test--pos-of (needle &optional offset)
  "The position of NEEDLE in the current buffer, plus OFFSET."
  (save-excursion
    (goto-char (point-min))
    (when (search-forward needle nil t)
      (+ (match-beginning 0) (or offset 0)))))

(defun efmesh-test--macros (server)
  (let* ((macro-buf (efmesh-test--new-file "macros/time.sql" efmesh-test--macro-text server))
         (stay-buf (efmesh-test--new-file "models/mart/stay_hours.sql" efmesh-test--stay-hours-text server))
         (case-buf (efmesh-test--new-file "models/mart/case_hours.sql" efmesh-test--case-hours-text server))
         (def-at (with-current-buffer macro-buf
                   (efmesh-test--line-col (efmesh-test--pos-of "hours_between("))))
         (default-at (with-current-buffer macro-buf
                       (efmesh-test--line-col (efmesh-test--pos-of "ended_at")))))

    ;; 1. The unknown column the macro's default brings in: an error at
    ;; the call; the server's diagnostic (kept by eglot in the flymake
    ;; diagnostic's data) relates it to the definition.
    (with-current-buffer case-buf
      (let* ((call "@hours_between(since)")
             (call-beg (efmesh-test--pos-of call))
             (diag (efmesh-test--wait (lambda () (efmesh-test--diag "ended_at")))))
        (efmesh-test--check diag "macros: case_hours.sql gets a diagnostic naming the unknown column ended_at" (flymake-diagnostics))
        (when diag
          (let ((beg (flymake-diagnostic-beg diag))
                (end (flymake-diagnostic-end diag)))
            (efmesh-test--out "     models/mart/case_hours.sql:%d:%d: %s" (1+ (car (efmesh-test--line-col beg)))
                              (1+ (cadr (efmesh-test--line-col beg))) (flymake-diagnostic-text diag))
            (efmesh-test--check (eq (flymake-diagnostic-type diag) 'eglot-error) "macros: the diagnostic is an error"
                                (flymake-diagnostic-type diag))
            (efmesh-test--check (and (= beg call-beg) (equal (buffer-substring-no-properties beg end) call))
                                (apply #'format "macros: the diagnostic spans the call %s at line %d, column %d"
                                       call (mapcar #'1+ (efmesh-test--line-col call-beg)))
                                (list (efmesh-test--line-col beg) (buffer-substring-no-properties beg end)))
            ;; eglot does not take relatedInformation: the server tells the
            ;; macro's definition in the message instead.
            (let ((want (apply #'format "macros/time.sql:%d:%d:" (mapcar #'1+ default-at)))
                  (text (flymake-diagnostic-text diag)))
              (efmesh-test--check (string-match-p (regexp-quote want) text)
                                  (format "macros: its message points at the definition, %s (eglot takes no relatedInformation)" want)
                                  text))))))


    (switch-to-buffer stay-buf)
    (efmesh-test--check (not (cl-find-if (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-error)) (flymake-diagnostics)))
                        "macros: stay_hours.sql has no errors" (flymake-diagnostics))

    ;; 2. A typo in the macro's name, typed: did you mean, and the quick
    ;; fix picked from eglot's menu.
    (let ((call-beg (efmesh-test--pos-of "@hours_between(")))
      (goto-char (+ call-beg (length "@hours_betw")))
      (delete-char 1)
      (let ((diag (efmesh-test--wait (lambda () (efmesh-test--diag "@hours_betwen")))))
        (efmesh-test--check diag "macros: typing @hours_betwen gets a diagnostic" (flymake-diagnostics))
        (when diag
          (let ((beg (flymake-diagnostic-beg diag))
                (end (flymake-diagnostic-end diag)))
            (efmesh-test--out "     models/mart/stay_hours.sql:%d:%d: %s" (1+ (car (efmesh-test--line-col beg)))
                              (1+ (cadr (efmesh-test--line-col beg))) (flymake-diagnostic-text diag))
            (efmesh-test--check (= beg call-beg)
                                (apply #'format "macros: the unknown macro is reported at the call (line %d, column %d)"
                                       (mapcar #'1+ (efmesh-test--line-col call-beg)))
                                (efmesh-test--line-col beg))
            (efmesh-test--check (string-match-p (regexp-quote "did you mean @hours_between") (flymake-diagnostic-text diag))
                                "macros: it says did you mean @hours_between" (flymake-diagnostic-text diag))
            (efmesh-test--apply-action beg end "Change to @hours_between" "@hours_between(started_at, ended_at)")))
        (unless (efmesh-test--pos-of "@hours_between(")
          (erase-buffer)
          (insert efmesh-test--stay-hours-text))
        (efmesh-test--check (efmesh-test--wait (lambda () (not (efmesh-test--diag "@hours_betwen"))))
                            "macros: the diagnostic clears once fixed" (flymake-diagnostics))))

    ;; 3. Hover on the call, through eldoc's hover function.
    (goto-char (efmesh-test--pos-of "@hours_between(" (length "@hours_be")))
    (let* ((hover nil)
           (started (eglot-hover-eldoc-function
                     (lambda (info &rest _) (setq hover (or info ""))))))
      (efmesh-test--check started "macros: eglot asks for hover on the call")
      (efmesh-test--wait (lambda () hover))
      (setq hover (substring-no-properties (or hover "")))
      (efmesh-test--check (string-match-p "expands to" hover) "macros: hover on the call says what it expands to" hover)
      (efmesh-test--check (string-match-p (regexp-quote "date_diff('hour', started_at, ended_at)") hover)
                          "macros: hover shows date_diff('hour', started_at, ended_at)" hover)
      (efmesh-test--check (string-match-p (regexp-quote "Whole hours from a to b; b is the stay's end unless given.") hover)
                          "macros: hover shows the macro's doc comment" hover)
      (dolist (l (split-string hover "\n"))
        (efmesh-test--out "     %s" l)))

    ;; 4. Go to definition: the macro's name in macros/time.sql.
    (goto-char (efmesh-test--pos-of "@hours_between(" (length "@hours_be")))
    (call-interactively #'xref-find-definitions)
    (efmesh-test--check (and (eq (current-buffer) macro-buf) (equal (efmesh-test--line-col (point)) def-at))
                        (apply #'format "macros: definition of the call lands in macros/time.sql at line %d, column %d"
                               (mapcar #'1+ def-at))
                        (list buffer-file-name (efmesh-test--line-col (point))))
    (switch-to-buffer stay-buf)

    ;; 5. Completion after typing @hou: completion-at-point completes it.
    (let ((call-beg (efmesh-test--pos-of "@hours_between(")))
      (goto-char (+ call-beg (length "@hou")))
      (delete-region (point) (+ call-beg (length "@hours_between")))
      (efmesh-test--idle)
      (let ((capf (eglot-completion-at-point)))
        (efmesh-test--check (and capf (member "hours_between"
                                              (all-completions (buffer-substring-no-properties (nth 0 capf) (nth 1 capf))
                                                               (nth 2 capf))))
                            "macros: completion after @hou offers hours_between"
                            (and capf (all-completions "" (nth 2 capf)))))
      (completion-at-point)
      (efmesh-test--check (efmesh-test--pos-of "@hours_between(started_at, ended_at)")
                          "macros: completion-at-point completes @hou to @hours_between"
                          (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
      (unless (efmesh-test--pos-of "@hours_between(started_at, ended_at)")
        (erase-buffer)
        (insert efmesh-test--stay-hours-text)))

    ;; 6. References through xref: the definition and both calls; rename:
    ;; all of them.
    (goto-char (efmesh-test--pos-of "@hours_between(" (length "@hours_be")))
    (efmesh-test--idle)
    (let* ((xrefs (xref-backend-references 'eglot (xref-backend-identifier-at-point 'eglot)))
           (got (sort (mapcar (lambda (x)
                                (let ((loc (xref-item-location x)))
                                  (format "%s:%d:%d" (file-name-nondirectory (xref-location-group loc))
                                          (xref-location-line loc) (1+ (xref-file-location-column loc)))))
                              xrefs)
                      #'string<))
           (want (sort (list (apply #'format "time.sql:%d:%d" (mapcar #'1+ def-at))
                             (apply #'format "stay_hours.sql:%d:%d"
                                    (let ((lc (efmesh-test--line-col (efmesh-test--pos-of "@hours_between(" 1))))
                                      (list (1+ (car lc)) (1+ (cadr lc)))))
                             (with-current-buffer case-buf
                               (apply #'format "case_hours.sql:%d:%d"
                                      (let ((lc (efmesh-test--line-col (efmesh-test--pos-of "@hours_between(" 1))))
                                        (list (1+ (car lc)) (1+ (cadr lc)))))))
                       #'string<)))
      (efmesh-test--check (equal got want)
                          (format "macros: references are the definition and both calls (%s)" (string-join want ", "))
                          got))
    (eglot-rename "hours_from")
    (efmesh-test--check (efmesh-test--pos-of "@hours_from(started_at, ended_at)")
                        "macros: rename renames the call at point" (buffer-string))
    (efmesh-test--check (with-current-buffer case-buf (efmesh-test--pos-of "@hours_from(since)"))
                        "macros: rename renames the other model's call" (with-current-buffer case-buf (buffer-string)))
    (efmesh-test--check (with-current-buffer macro-buf (efmesh-test--pos-of "MACRO hours_from(a, b := ended_at)"))
                        "macros: rename renames the definition" (with-current-buffer macro-buf (buffer-string)))
    (dolist (b (list macro-buf stay-buf case-buf))
      (with-current-buffer b (set-buffer-modified-p nil)))))

(defun efmesh-test--run ()
  (efmesh-test--check (and efmesh-test--project
                           (file-exists-p (expand-file-name "efmesh.yaml" efmesh-test--project)))
                      "EFMESH_PROJECT is an efmesh project" efmesh-test--project)
  (efmesh-test--out "# GNU Emacs %s, eglot %s, efmesh lsp (%s) on %s"
                    emacs-version
                    (file-name-nondirectory
                     (directory-file-name (file-name-directory (locate-library "eglot"))))
                    efmesh-test--bin efmesh-test--project)
  (setq efmesh-command (list efmesh-test--bin "lsp")
        efmesh-environment "dev")

  ;; A .sql file outside any project stays in sql-mode, without eglot.
  (let ((outside (make-temp-file "efmesh-outside" nil ".sql" "SELECT 1\n")))
    (with-current-buffer (find-file-noselect outside)
      (efmesh-test--check (eq major-mode 'sql-mode) "a .sql file outside a project is in sql-mode" major-mode)
      (kill-buffer))
    (delete-file outside))

  ;; The model, with an unknown column written into it on disk.
  (let* ((rel "models/med/stays_by_dept.sql")
         (file (expand-file-name rel efmesh-test--project))
         (typo "hourz")
         (good "s.hours"))
    (with-temp-file file
      (insert-file-contents file)
      (goto-char (point-min))
      (search-forward (concat "avg(" good ")"))
      (replace-match (concat "avg(s." typo ")") t t))
    (find-file file)
    (efmesh-test--check (eq major-mode 'efmesh-mode) (concat rel " opens in efmesh-mode") major-mode)
    (efmesh-test--check (derived-mode-p 'sql-mode) "efmesh-mode derives from sql-mode")
    ;; eglot-ensure connects after the user's first command.
    (run-hooks 'post-command-hook)
    (let ((server (efmesh-test--wait (lambda () (and eglot--managed-mode (eglot-current-server))))))
      (unless (efmesh-test--check server "eglot starts efmesh lsp and manages the buffer")
        (error "no server"))
      (efmesh-test--check (string= (file-name-as-directory (expand-file-name (project-root (eglot--project server))))
                                   (file-name-as-directory (expand-file-name efmesh-test--project)))
                          "the server's workspace is the folder holding efmesh.yaml"
                          (project-root (eglot--project server)))
      (efmesh-test--check (equal (process-command (jsonrpc--process server)) efmesh-command)
                          "eglot runs the configured command" (process-command (jsonrpc--process server)))

      ;; The diagnostic of the unknown column, at its exact range.
      (let* ((expected-beg (save-excursion
                             (goto-char (point-min))
                             (search-forward (concat "avg(s." typo))
                             (- (point) (length typo))))
             (diag (efmesh-test--wait (lambda () (efmesh-test--diag typo)))))
        (efmesh-test--check diag (concat "a diagnostic names the unknown column " typo) (flymake-diagnostics))
        (when diag
          (let ((beg (flymake-diagnostic-beg diag))
                (end (flymake-diagnostic-end diag)))
            (efmesh-test--out "     %s:%d:%d: %s" rel (1+ (car (efmesh-test--line-col beg)))
                              (1+ (cadr (efmesh-test--line-col beg))) (flymake-diagnostic-text diag))
            (efmesh-test--check (equal (efmesh-test--line-col beg) (efmesh-test--line-col expected-beg))
                                (apply #'format "the diagnostic starts at line %d, column %d"
                                       (mapcar #'1+ (efmesh-test--line-col expected-beg)))
                                (efmesh-test--line-col beg))
            (efmesh-test--check (equal (buffer-substring-no-properties beg end) typo)
                                (concat "the diagnostic spans exactly " typo)
                                (buffer-substring-no-properties beg end))
            (efmesh-test--check (eq (flymake-diagnostic-type diag) 'eglot-error) "the diagnostic is an error"
                                (flymake-diagnostic-type diag))
            (efmesh-test--check (string-match-p "did you mean \"hours\"" (flymake-diagnostic-text diag))
                                "the diagnostic suggests hours" (flymake-diagnostic-text diag))

            ;; Its quick fix, when the server offers one; else the user types it.
            (if (efmesh-test--action beg end "hours")
                (efmesh-test--apply-action beg end "hours" (concat "avg(" good ")"))
              (efmesh-test--out "--   no quick fix offered for the unknown column: fixed by typing")
              (goto-char beg)
              (delete-region (- beg 2) end)
              (insert good))
            (efmesh-test--check (efmesh-test--wait (lambda () (not (efmesh-test--diag typo))))
                                "the column's diagnostic clears once fixed" (flymake-diagnostics)))))

      ;; A typo in a model name, typed: its diagnostic, and its code action
      ;; picked from eglot's menu and applied.
      (goto-char (point-min))
      (search-forward "@ref(ref.departments")
      (let ((name-beg (- (point) (length "ref.departments"))))
        (delete-char -5)
        (insert "mnts")
        (let ((diag (efmesh-test--wait (lambda () (efmesh-test--diag "ref.departmnts")))))
          (efmesh-test--check diag "typing @ref(ref.departmnts) gets an unknown-model diagnostic" (flymake-diagnostics))
          (when diag
            (let ((beg (flymake-diagnostic-beg diag))
                  (end (flymake-diagnostic-end diag)))
              (efmesh-test--check (equal (buffer-substring-no-properties beg end) "ref.departmnts")
                                  "the diagnostic spans exactly the model name"
                                  (list (efmesh-test--line-col beg) (efmesh-test--line-col name-beg)
                                        (buffer-substring-no-properties beg end)))
              (efmesh-test--apply-action beg end "Change to ref.departments" "@ref(ref.departments)")
              (efmesh-test--check (efmesh-test--wait (lambda () (not (efmesh-test--diag "ref.departmnts"))))
                                  "the model's diagnostic clears after the fix" (flymake-diagnostics))))))

      ;; Hover on @ref(med.stays), through eldoc's hover function.
      (goto-char (point-min))
      (search-forward "@ref(med.st")
      (let* ((hover nil)
             (started (eglot-hover-eldoc-function
                       (lambda (info &rest _) (setq hover (or info ""))))))
        (efmesh-test--check started "eglot asks for hover")
        (efmesh-test--wait (lambda () hover))
        (setq hover (or hover ""))
        (efmesh-test--check (string-match-p (regexp-quote "med.stays") hover) "hover on @ref(med.stays) names the model" hover)
        (let ((missing (cl-remove-if (lambda (c) (string-match-p (regexp-quote c) hover))
                                     '("stay_id" "case_id" "dept" "started_at" "ended_at" "hours"))))
          (efmesh-test--check (null missing) "hover lists the columns of med.stays" missing))
        (dolist (l (split-string hover "\n"))
          (efmesh-test--out "     %s" l)))

      ;; The mode's commands: render and plan, through the server.
      (let ((render (efmesh-render "dev")))
        (efmesh-test--check (buffer-live-p render) "efmesh-render shows the rendered SQL")
        (when (buffer-live-p render)
          (let ((sql (with-current-buffer render (buffer-string))))
            (efmesh-test--check (and (string-match-p (regexp-quote "\"dev__med\".\"stays\"") sql)
                                     (not (string-match-p "@ref" sql)))
                                "the rendered SQL reads the dev views instead of @ref" sql)
            (efmesh-test--check (with-current-buffer render (and (derived-mode-p 'sql-mode) buffer-read-only))
                                "the render buffer is read-only SQL"))))
      (let ((plan (efmesh-plan "dev")))
        (efmesh-test--check (and (buffer-live-p plan)
                                 (string-match-p "Plan for environment dev" (with-current-buffer plan (buffer-string))))
                            "efmesh-plan shows the plan of dev"
                            (and (buffer-live-p plan) (with-current-buffer plan (buffer-string)))))
      (efmesh-test--check (eq (lookup-key efmesh-mode-map (kbd "C-c C-e p")) #'efmesh-plan)
                          "C-c C-e p runs efmesh-plan")

      ;; Formatting, when the server offers it.
      (if (not (eglot--server-capable :documentFormattingProvider))
          (efmesh-test--out "--   the server does not advertise documentFormattingProvider: formatting not checked")
        ;; The file is canonical here: keyword case and spacing are
        ;; undone, and formatting must write the canonical text back.
        (let ((canonical (buffer-string)))
          (dolist (edit '(("\nFROM @ref(med.stays) AS s" . "\nfrom @ref(med.stays) as s")
                          ("LEFT JOIN" . "left join")
                          ("GROUP BY ALL" . "group   by all")))
            (goto-char (point-min))
            (efmesh-test--check (search-forward (car edit) nil t) (format "the model holds %S" (car edit)))
            (replace-match (cdr edit) t t))
          (efmesh-test--check (not (string= canonical (buffer-string))) "the buffer now needs formatting")
          (efmesh-test--idle)
          (eglot-format-buffer)
          (let ((once (buffer-string)))
            (efmesh-test--check (string= once canonical)
                                "formatting writes the canonical text (keywords upper-case, one space)" once)
            (efmesh-test--check (string-match-p (regexp-quote "Stays per department") once)
                                "formatting keeps the header" once)
            (efmesh-test--out "     formatted (%s)" (if (string= once canonical) "canonical" "not canonical"))
            (efmesh-test--idle)
            (eglot-format-buffer)
            (efmesh-test--check (string= once (buffer-string)) "formatting twice changes nothing"
                                (buffer-string)))))

      ;; Go to definition of @ref(med.stays): the parent model's file.
      (goto-char (point-min))
      (search-forward "@ref(med.st")
      (let ((model-buffer (current-buffer)))
        (call-interactively #'xref-find-definitions)
        (efmesh-test--check (and buffer-file-name
                                 (string-suffix-p "models/med/stays.sql" buffer-file-name))
                            "definition of @ref(med.stays) opens models/med/stays.sql" buffer-file-name)
        (efmesh-test--check (eq major-mode 'efmesh-mode) "the parent model opens in efmesh-mode" major-mode)
        (efmesh-test--check (eq (eglot-current-server) server) "the parent model joins the same server")
        (efmesh-test--check (save-excursion
                              (beginning-of-line)
                              (looking-at-p ".*med\\.stays"))
                            "the cursor lands on the model's name"
                            (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
        (switch-to-buffer model-buffer))

      (let ((model-buffer (current-buffer)))
        (efmesh-test--macros server)
        (switch-to-buffer model-buffer))

      (with-current-buffer (current-buffer) (set-buffer-modified-p nil))
      (eglot-shutdown server))))

(condition-case err
    (efmesh-test--run)
  (error (efmesh-test--check nil "the test ran to its end" err)))
(efmesh-test--out "\nemacs e2e: %d passed, %d failed" efmesh-test--passed efmesh-test--failed)
(kill-emacs (if (> efmesh-test--failed 0) 1 0))

;;; e2e.el ends here
