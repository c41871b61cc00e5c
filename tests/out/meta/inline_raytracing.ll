; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"CastRays"()

declare void @"Shade"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !15, !20 }
!wgc.spirv.entryPoints = !{ !21, !22 }
!wgc.experimental.tags = !{ !23, !24 }
!llvm.ident = !{ !25 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"CastRays", i32 0 }
!4 = !{ i32 16, i32 16, i32 1 }
!5 = !{ i32 0, i32 5, i32 2 }
!6 = !{ i32 0, i32 24, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 32, i32 2, i32 4 }
!10 = !{ !"Shade", i32 0 }
!11 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 64, i32 0, !10 }
!12 = !{ !11 }
!13 = !{ i32 8, i32 8, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !12, i32 4, !13 }
!15 = !{ void ()* @"CastRays", !"CastRays", null, null, !14 }
!16 = !{ i32 1, i32 33, i32 2, !9 }
!17 = !{ !16 }
!18 = !{ i32 1, i32 1, i32 1 }
!19 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !17, i32 4, !18 }
!20 = !{ void ()* @"Shade", !"Shade", null, null, !19 }
!21 = !{ void ()* @"CastRays", !"CastRays" }
!22 = !{ void ()* @"Shade", !"Shade" }
!23 = !{ !"NodeMaxLoopIterations", i32 131072 }
!24 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!25 = !{ !"wgc 0.1.0" }
