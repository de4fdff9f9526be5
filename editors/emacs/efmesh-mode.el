;;; efmesh-mode.el --- Major mode for efmesh models, with the efmesh language server  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, sql

;;; Commentary:

;; `efmesh-mode' is `sql-mode' for the SQL models of an efmesh project (the
;; .sql files below a folder holding efmesh.yaml).  It registers `efmesh lsp'
;; with eglot and starts eglot in the model's buffer, so that diagnostics
;; (flymake), hover (eldoc), definition and references (xref), rename,
;; completion, code actions and formatting come from the efmesh server.
;;
;;   (add-to-list 'load-path "~/src/efmesh/editors/emacs")
;;   (require 'efmesh-mode)
;;
;; A .sql file outside an efmesh project stays in plain `sql-mode'.  The
;; workspace root eglot gives the server is the folder holding efmesh.yaml,
;; also when the project lives inside a larger version-controlled tree.

;;; Code:

(require 'sql)
(require 'eglot)
(require 'project)

(defgroup efmesh nil
  "The efmesh language server in Emacs."
  :group 'languages
  :prefix "efmesh-")

(defcustom efmesh-command '("efmesh" "lsp")
  "The command that runs the efmesh language server (stdio).
Use the full path of the binary when it is not on `exec-path'."
  :type '(repeat string))

(defcustom efmesh-environment "dev"
  "The environment code lenses and the server's commands compare with.
Sent to the server as initializationOptions.environment."
  :type 'string)

(defcustom efmesh-autostart t
  "When non-nil, opening a model starts eglot (`eglot-ensure')."
  :type 'boolean)

(defconst efmesh-config-file "efmesh.yaml"
  "The file that marks the root folder of an efmesh project.")

(defun efmesh-project-root (&optional file)
  "The root of the efmesh project holding FILE, or nil.
FILE defaults to the current buffer's file.  The root is the nearest
folder above FILE that holds efmesh.yaml."
  (let ((file (or file buffer-file-name default-directory)))
    (when file
      (let ((dir (locate-dominating-file file efmesh-config-file)))
        (and dir (file-name-as-directory (expand-file-name dir)))))))

(defun efmesh--project (dir)
  "The efmesh project of DIR for `project-find-functions', or nil.
It is a transient project rooted at the folder holding efmesh.yaml."
  (let ((root (efmesh-project-root dir)))
    (and root (cons 'transient root))))

(defun efmesh--contact (&optional _interactive)
  "The eglot contact of the efmesh server: `efmesh-command' with its options."
  (append efmesh-command
          (list :initializationOptions
                (list :environment efmesh-environment))))

;;;###autoload
(define-derived-mode efmesh-mode sql-mode "efmesh"
  "Major mode for the SQL models of an efmesh project.
It is `sql-mode' whose buffers are managed by eglot with the efmesh
language server (`efmesh-command')."
  (add-hook 'project-find-functions #'efmesh--project nil t)
  (when (and efmesh-autostart buffer-file-name (efmesh-project-root))
    (eglot-ensure)))

(add-to-list 'eglot-server-programs
             '((efmesh-mode :language-id "sql") . efmesh--contact))

;;; Commands: what the protocol alone does not show (eglot draws no code
;;; lenses).

(defun efmesh--uri (file)
  "The LSP URI of FILE."
  (if (fboundp 'eglot-path-to-uri)
      (eglot-path-to-uri file)
    (eglot--path-to-uri file)))

(defun efmesh-execute (command &rest args)
  "Run the server's COMMAND about the current model; return its result.
ARGS is a plist of the command's arguments besides the model's uri."
  (let ((server (or (eglot-current-server)
                    (user-error "No efmesh server manages this buffer (M-x eglot)"))))
    (eglot-execute-command server command
                           (vector (append (list :uri (efmesh--uri buffer-file-name)) args)))))

(defun efmesh--read-env ()
  (read-string (format "Environment (default %s): " efmesh-environment)
               nil nil efmesh-environment))

(defun efmesh--show (name text)
  "Show TEXT in a read-only buffer NAME beside the current window; return it."
  (let ((buf (get-buffer-create name)))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text))
      (goto-char (point-min))
      (special-mode))
    (display-buffer buf)
    buf))

(defun efmesh-render (env)
  "Show the SQL the current model runs in environment ENV (unsaved edits included)."
  (interactive (list (efmesh--read-env)))
  (let ((sql (efmesh-execute 'efmesh.render :env env)))
    (with-current-buffer (efmesh--show (format "*efmesh render %s (%s)*"
                                               (file-name-base buffer-file-name) env)
                                       sql)
      (let ((inhibit-read-only t)) (sql-mode) (read-only-mode 1))
      (current-buffer))))

(defun efmesh-plan (env)
  "Show what applying the project to environment ENV would do."
  (interactive (list (efmesh--read-env)))
  (let ((plan (efmesh-execute 'efmesh.plan :env env)))
    (efmesh--show (format "*efmesh plan %s*" env) (plist-get plan :summary))))

(define-key efmesh-mode-map (kbd "C-c C-e r") #'efmesh-render)
(define-key efmesh-mode-map (kbd "C-c C-e p") #'efmesh-plan)

;;;###autoload
(defun efmesh-mode-maybe ()
  "`efmesh-mode' for a .sql file inside an efmesh project, else `sql-mode'."
  (if (and buffer-file-name (efmesh-project-root))
      (efmesh-mode)
    (sql-mode)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.sql\\'" . efmesh-mode-maybe))

(provide 'efmesh-mode)

;;; efmesh-mode.el ends here
